# Pools as owners: a pool made by cuMemPoolCreate (or cudaMemPoolCreate,
# which reaches it) and never destroyed is reported at the line that
# created it (kind mempool), its size the reserve the driver held for it at
# the snapshot (CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), but in no device's
# usage, which counts its allocations; a destroyed pool is no leak and no
# unknown free.
source "$ROOT/tests/lib.sh"
GPULEAK_OUTPUT=final.snap traced "$TPROG/pool_owner"
"$REPORT" --json final.snap >final.json
check_json final.json <<PY
eq([(l["kind"], l["api"], l["bytes"], l["device"], frame(l["frames"][0])) for l in leaks],
   [("mempool", "cuMemPoolCreate", 4 << 20, 0, "leak_pool_object pool_owner.c:$(site_line pool_owner.c POOL-SITE)"),
    ("mempool", "cuMemPoolCreate", 0, 0, "rt_leak_pool_object pool_owner.c:$(site_line pool_owner.c RT-SITE)")],
   "pools never destroyed, with their reserve")
eq(d["invalid_frees"]["count"], 0, "the destroyed pool's destroy matched")
eq([(x["device"], x["alloc_count"], x["free_count"], x["live_bytes"], x["peak_bytes"]) for x in d["devices"]],
   [(0, 2, 2, 0, 4 << 20)], "usage: the pool allocations only")
PY
"$REPORT" final.snap >final.txt
grep -qx "4,194,304 bytes (4.0 MiB) in 1 allocation: mempool memory on device 0 (cuMemPoolCreate), not freed at exit" final.txt ||
    fail "text report: $(sed -n '/^LEAKS/,/^LEAK SUMMARY/p' final.txt)"
