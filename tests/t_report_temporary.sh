#!/usr/bin/env bash
# TEMPORARY ALLOCATIONS (--sections temporary, report/sections/temporary.c):
# one thread makes 100 cudaMalloc/cudaFree pairs from one line and leaks one
# allocation from another (tests/programs/churn.c): each pair is temporary,
# the leak is not.  Exact text and JSON; the section selected alone; a
# snapshot without a history writes no section and a JSON member of zeros.
source "$ROOT/tests/lib.sh"
traced "$TPROG/churn" 1 100 >/dev/null || fail "run"
snap=$(only_snapshot)
"$REPORT" "$snap" >r.txt
"$REPORT" --sections temporary "$snap" >t.txt
"$REPORT" --json --sections temporary "$snap" >t.json
expect_eq "$(sed -n '/^TEMPORARY ALLOCATIONS$/,/^$/p' r.txt | sed -n '6p')" \
    "100 temporary allocations of the 101 in the history, 409,600 bytes (400.0 KiB) in all" "total line"
grep -qx '100 temporary allocations of 100 made there (cudaMalloc, device), 409,600 bytes (400.0 KiB) in all' r.txt ||
    fail "site line"
grep -qx '    #0 worker (churn.c:28) \[churn\]' r.txt || fail "site's stack"
# alone: the section and no other
expect_eq "$(grep -cx 'TEMPORARY ALLOCATIONS\|LEAKS\|ALLOCATION CALLS\|PEAK' t.txt)" 1 "--sections temporary's titles"
check_multi_json t.json <<'PY'
t = d["temporary_allocations"]
eq((t["allocations"], t["temporary"], t["bytes"]), (101, 100, 409600), "totals")
eq([(s["temporary"], s["allocations"], s["bytes"], s["api"], s["kind"], s["frames"][0]["function"], s["frames"][0]["line"])
    for s in t["sites"]], [(100, 100, 409600, "cudaMalloc", "device", "worker", 28)], "sites")
eq("leaks" in d or "allocation_calls" in d, False, "other sections left out")
PY

# No history: no section, an empty member.
"$TPROG/snapgen" nohistory n.snap
"$REPORT" n.snap | grep -q 'TEMPORARY ALLOCATIONS' && fail "section without a history"
"$REPORT" --json n.snap >n.json
check_json n.json <<'PY'
eq(d["temporary_allocations"], {"allocations": 0, "temporary": 0, "bytes": 0, "sites": []}, "no history")
PY
echo ok
