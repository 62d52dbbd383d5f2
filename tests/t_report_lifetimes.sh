#!/usr/bin/env bash
# ALLOCATION LIFETIMES (--sections lifetimes, report/sections/lifetimes.c):
# allocations freed in the history by the time they lived, live ones by
# their age at the snapshot, in classes of powers of ten.  Two threads make
# 100 cudaMalloc/cudaFree pairs each (4096 and 4097 bytes) and leak 1 and 2
# allocations of 1000 bytes, held 1.5 s before the exit snapshot
# (tests/programs/churn.c): exact counts and bytes, the same in light mode
# (every allocation and free is recorded there; only stacks are sampled).
# Then one thread's 3 pairs and leak with every time set (snap_set), so
# each class of the table is exact; the section alone; no history.
source "$ROOT/tests/lib.sh"
traced "$TPROG/churn" 2 100 1500 >/dev/null || fail "run"
snap=$(only_snapshot)
mv "$snap" full.snap
GPULEAK_MODE=light GPULEAK_SAMPLE_BYTES=64K GPULEAK_SAMPLE_SEED=1 traced "$TPROG/churn" 2 100 1500 >/dev/null ||
    fail "run, light"
mv "$(only_snapshot)" light.snap
for s in full light; do
    "$REPORT" "$s.snap" >"$s.txt"
    expect_eq "$(grep -x '  all .*' "$s.txt")" \
        "  all                         200          819,300          3            3,000" "$s: the totals line"
    # held 1.5 s: the leaks are in the class from 1 s (10 s is far)
    expect_eq "$(grep -x '  1 s - 10 s .*' "$s.txt")" \
        "  1 s - 10 s                    0                0          3            3,000" "$s: the leaks' class"
    "$REPORT" --json --sections lifetimes "$s.snap" >"$s.json"
    check_multi_json "$s.json" <<PY
t = d["allocation_lifetimes"]
eq(d["snapshot"]["sampling"] is not None, "$s" == "light", "sampled")
eq((t["history"], t["freed"]["count"], t["freed"]["bytes"], t["frees_before_history"]), (True, 200, 819300, 0),
   "freed")
# each pair lives far below a second; the classes add up to the totals
eq(all(c["max_ns"] is not None and c["max_ns"] <= 10**9 for c in t["freed"]["classes"]), True, "pairs' classes")
eq((sum(c["count"] for c in t["freed"]["classes"]), sum(c["bytes"] for c in t["freed"]["classes"])), (200, 819300),
   "freed classes' sums")
eq(t["live"], {"count": 3, "bytes": 3000,
               "classes": [{"min_ns": 10**9, "max_ns": 10**10, "count": 3, "bytes": 3000}]}, "live")
eq("leaks" in d or "temporary_allocations" in d, False, "other sections left out")
PY
done

# Every time set: 3 pairs of 4096 bytes living 5 us, 50 ms and 20 s, and
# the leak (1000 bytes) an hour old at the snapshot.  The history is
# alloc, free, alloc, free, alloc, free, alloc, snapshot (one thread).
traced "$TPROG/churn" 1 3 >/dev/null || fail "run, 3 pairs"
lifetimes_snapshots "$(only_snapshot)"
"$REPORT" --sections lifetimes set.snap >set.txt
expect_eq "$(sed -n '/^ALLOCATION LIFETIMES$/,$p' set.txt | sed -n '6,$p')" \
"  lifetime, or age          freed      freed bytes       live       live bytes
  under 10 us                   1            4,096          0                0
  10 ms - 100 ms                1            4,096          0                0
  10 s - 100 s                  1            4,096          0                0
  1000 s - 10000 s              0                0          1            1,000
  all                           3           12,288          1            1,000" "the table, times set"
expect_eq "$(grep -cx 'ALLOCATION LIFETIMES\|LEAKS\|ALLOCATION CALLS\|TEMPORARY ALLOCATIONS\|PEAK' set.txt)" 1 \
    "--sections lifetimes' titles"
"$REPORT" --json --sections lifetimes set.snap >set.json
check_multi_json set.json <<'PY'
t = d["allocation_lifetimes"]
eq([(c["min_ns"], c["max_ns"], c["count"], c["bytes"]) for c in t["freed"]["classes"]],
   [(0, 10**4, 1, 4096), (10**7, 10**8, 1, 4096), (10**10, 10**11, 1, 4096)], "freed classes")
eq([(c["min_ns"], c["max_ns"], c["count"], c["bytes"]) for c in t["live"]["classes"]],
   [(10**12, 10**13, 1, 1000)], "live classes")
PY
# The first pair's allocation left out of the history, its free moved to
# an address of its own, above every allocation: a free of an allocation
# from before the history, counted apart, and not taken for the free of
# the last allocation before it in address order (the leak, still live).
"$REPORT" --sections lifetimes older.snap >older.txt
grep -qx '  all                           2            8,192          1            1,000' older.txt ||
    fail "totals without the first pair: $(grep '  all' older.txt)"
grep -qx '(1 free of allocations made before the history began: lives unknown)' older.txt ||
    fail "the older free: $(tail -2 older.txt)"

# No history: live ages only, said so; JSON without freed classes.
"$TPROG/snapgen" nohistory n.snap
"$REPORT" --sections lifetimes n.snap | grep -qx '(no history in this snapshot: no lives of freed allocations)' ||
    fail "no history line"
"$REPORT" --json n.snap >n.json
check_json n.json <<'PY'
t = d["allocation_lifetimes"]
eq((t["history"], t["freed"], t["frees_before_history"], t["live"]["count"]),
   (False, {"count": 0, "bytes": 0, "classes": []}, 0, 7), "no history")
PY
echo ok
