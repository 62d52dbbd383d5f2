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
got = sorted((l["kind"], l["api"], l["bytes"], l["device"], frame(l["frames"][0])) for l in leaks)
# The second pool keeps the freed 4 MiB block; the 1 MiB block allocated
# from it later is a leak of its own and is not in the pool's idle reserve.
pools = [p for dev in d["fragmentation"]["devices"] for p in dev["pools"]]
pool2 = [p for p in pools if not p["graph"] and p["used_bytes"] == 1 << 20]
eq(len(pool2), 1, "POOLS has the pool with the live 1 MiB block: %r" % pools)
idle = pool2[0]["reserved_bytes"] - pool2[0]["used_bytes"]
eq(idle, 4 << 20, "its idle reserve: the kept 4 MiB block (the 1 MiB one came from new memory)")
eq(got, sorted([
    ("mempool", "cuMemPoolCreate", 4 << 20, 0, "leak_pool_object pool_owner.c:$(site_line pool_owner.c POOL-SITE)"),
    ("mempool", "cuMemPoolCreate", 0, 0, "rt_leak_pool_object pool_owner.c:$(site_line pool_owner.c RT-SITE)"),
    ("mempool", "cuMemPoolCreate", idle, 0, "leak_pool_and_block pool_owner.c:$(site_line pool_owner.c POOL2-SITE)"),
    ("pool", "cuMemAllocFromPoolAsync", 1 << 20, 0, "leak_pool_and_block pool_owner.c:$(site_line pool_owner.c BLOCK-SITE)")]),
   "pools never destroyed, with their idle reserve, and the block leaked from one")
eq(d["invalid_frees"]["count"], 0, "the destroyed pool's destroy matched")
eq([(x["device"], x["alloc_count"], x["free_count"], x["live_bytes"], x["peak_bytes"]) for x in d["devices"]],
   [(0, 4, 3, 1 << 20, 4 << 20)], "usage: the pool allocations only")
PY
"$REPORT" final.snap >final.txt
grep -qx "4,194,304 bytes (4.0 MiB) in 1 allocation: mempool memory on device 0 (cuMemPoolCreate), not freed at exit" final.txt ||
    fail "text report: $(sed -n '/^LEAKS/,/^LEAK SUMMARY/p' final.txt)"
