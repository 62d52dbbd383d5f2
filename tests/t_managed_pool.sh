# CUDA 13 managed-memory pools: what cuMemAllocFromPoolAsync and
# cudaMallocFromPoolAsync take from a pool created with
# CU_MEM_ALLOCATION_TYPE_MANAGED, or from a location's default or current
# managed pool (cuMemGetDefaultMemPool, cuMemGetMemPool), is managed memory
# (kind managed), at the allocating line, on the pool's device; a pinned
# pool's is pool memory.
source "$ROOT/tests/lib.sh"
line() { site_line managed_pool.c "$1"; }

GPULEAK_OUTPUT=final.snap traced "$TPROG/managed_pool" >out.txt
expect_eq "$(cat out.txt)" "CURRENT created" "cuMemSetMemPool then cuMemGetMemPool"
# cudaDeviceReset last: stream-ordered memory, a managed pool's too, is not
# the context's, so the same leaks, none torn down.
GPULEAK_OUTPUT=reset.snap traced "$TPROG/managed_pool" reset
"$REPORT" --json final.snap >final.json
"$REPORT" --json reset.snap >reset.json
for f in final.json reset.json; do
check_json $f <<PY
eq(d["teardown_leaks"]["groups"], [], "nothing went with a teardown")
# the three pools, never destroyed, are leaks of their own (t_pool_owner)
eq(sorted((l["kind"], l["count"]) for l in leaks if l["kind"] == "mempool"), [("mempool", 1)] * 3, "pools")
leaks = [l for l in leaks if l["kind"] != "mempool"]
eq(sorted((l["kind"], l["api"], l["bytes"], l["device"], frame(l["frames"][0])) for l in leaks),
   [("managed", "cuMemAllocFromPoolAsync", 3 << 20, 0, "leak_managed managed_pool.c:$(line MANAGED-SITE)"),
    ("managed", "cuMemAllocFromPoolAsync", 5 << 20, 0, "leak_default_managed managed_pool.c:$(line DEFAULT-SITE)"),
    ("managed", "cuMemAllocFromPoolAsync", 6 << 20, 0, "leak_current_managed managed_pool.c:$(line CURRENT-SITE)"),
    ("managed", "cudaMallocFromPoolAsync", 4 << 20, 0, "rt_leak_managed managed_pool.c:$(line RT-SITE)"),
    ("pool", "cuMemAllocFromPoolAsync", 1 << 20, 0, "leak_pool managed_pool.c:$(line POOL-SITE)")],
   "leaks by kind")
eq(d["invalid_frees"]["count"], 0, "the managed pool's free matched")
eq([(x["device"], x["alloc_count"], x["free_count"], x["live_bytes"]) for x in d["devices"]],
   [(0, 6, 1, 19 << 20)], "device 0 counters")
PY
done
"$REPORT" final.snap >final.txt
grep -qx "    managed memory on device 0: 18,874,368 bytes (18.0 MiB) in 4 allocations" final.txt ||
    fail "text report: $(sed -n '/^LEAK SUMMARY/,/^ALLOCATION/p' final.txt)"
