# Allocation calls per stack (the CALLS record): four threads each make 1,000
# cudaMalloc/cudaFree pairs from one line (tests/programs/churn.c) and leak
# t+1 allocations from another.  The report counts every call exactly,
# whichever thread made it -- calls, frees and bytes per site, most calls
# first -- in JSON and text, --top limits the text, and a CALLS entry naming
# an undefined stack is refused with one line.
source "$ROOT/tests/lib.sh"
traced "$TPROG/churn" 4 1000 >/dev/null || fail "run"
snap=$(only_snapshot)
"$REPORT" --json "$snap" >r.json
"$REPORT" "$snap" >r.txt
"$REPORT" --top 1 "$snap" >top.txt
check_json r.json <<'PY'
c = d["allocation_calls"]
# worker: 1,000 pairs per thread of 4096 + t bytes; leak_in_thread: t + 1 of 1000 bytes
eq([(s["calls"], s["frees"], s["bytes"], s["api"], s["kind"], s["frames"][0]["function"]) for s in c["sites"]],
   [(4000, 4000, 1000 * (4 * 4096 + 0 + 1 + 2 + 3), "cudaMalloc", "device", "worker"),
    (10, 0, 10 * 1000, "cudaMalloc", "device", "leak_in_thread")], "sites")
eq((c["calls"], c["frees"], c["bytes"]), (4010, 4000, 16390000 + 10000), "totals")
eq(sum(x["alloc_count"] for x in d["devices"]), 4010, "the device counters agree")
PY
grep -qx 'ALLOCATION CALLS' r.txt || fail "section"
grep -qx '4,010 calls, 4,000 freed, from 2 stacks, 16,400,000 bytes (15.6 MiB) made in all' r.txt || fail "total line"
grep -qx '4,000 calls (cudaMalloc, device), 4,000 freed, 16,390,000 bytes (15.6 MiB) in all' r.txt || fail "site line"
grep -qx '10 calls (cudaMalloc, device), 0 freed, 10,000 bytes (9.8 KiB) in all' r.txt || fail "leak site line"
grep -qx '(1 more stack with 10 calls not shown; --top N shows more)' top.txt || fail "--top 1"
grep -q '^10 calls' top.txt && fail "--top 1 showed the second site"

# A snapshot without the record (an older writer): no section, an empty member.
"$TPROG/snapgen" ipc old.snap
"$REPORT" old.snap | grep -q 'ALLOCATION CALLS' && fail "section without calls"
"$REPORT" --json old.snap >old.json
check_json old.json <<'PY'
eq(d["allocation_calls"], {"calls": 0, "frees": 0, "bytes": 0, "sites": []}, "no record")
PY

# Hostile: an entry naming a stack no STACK record defines.
snap_set "$snap" bad.snap CALLS 0 stack_id 999999
rc=0
"$REPORT" bad.snap >/dev/null 2>bad.err || rc=$?
[ "$rc" -eq 2 ] || fail "undefined stack: exit $rc"
expect_eq "$(wc -l <bad.err)" 1 "one error line"
grep -q 'calls entry 0 refers to undefined stack id 999999' bad.err || fail "message: $(cat bad.err)"

# diff: the calls made between the first and last snapshots of one process
# (tests/programs/call_window.c): site_a made 100 calls before and 150 in
# all from one stack, site_b 30 after.
mkdir win && (cd win && RANK=2 GPULEAK_OUTPUT=final.snap traced "$TPROG/call_window") || fail "call_window run"
"$REPORT" --json diff win/before.snap win/final.snap >diff.json
"$REPORT" diff win/before.snap win/final.snap >diff.txt
check_multi_json diff.json <<'PY'
c = d["allocation_calls_between"]
eq([(s["calls"], s["frees"], s["bytes"], s["frames"][1]["function"]) for s in c["sites"]],
   [(50, 50, 50 * 4096, "site_a"), (30, 30, 30 * 1000, "site_b")], "calls between")
eq((c["calls"], c["frees"], c["bytes"]), (80, 80, 50 * 4096 + 30000), "totals between")
PY
grep -qx 'ALLOCATION CALLS BETWEEN THE FIRST AND LAST SNAPSHOTS' diff.txt || fail "diff section"
grep -qx '50 calls (cudaMalloc, device), 50 freed, 204,800 bytes (200.0 KiB) in all' diff.txt || fail "diff site line"
# The same snapshot twice: nothing between.
"$REPORT" diff win/final.snap win/final.snap | sed -n '/^ALLOCATION CALLS BETWEEN/{n;p}' | grep -qx 'None.' ||
    fail "no calls between a snapshot and itself"
# Two processes: no diff between them (issue 35 item 4: refused, status 2,
# nothing written); merge, below, compares them.
rc=0; "$REPORT" --json diff "$snap" win/final.snap >two.json 2>two.err || rc=$?
expect_eq "$rc:$(wc -c <two.json):$(grep -c "^gpuleak-report: diff: the snapshots come from 2 different processes (no rank, pid [0-9]* on .*, rank 2 pid [0-9]* on .*); growth is measured between snapshots of one process: compare processes with 'merge', or two runs of one program stack by stack with 'diff --across-runs'$" two.err)" \
    "2:0:1" "two processes refused"

# merge: the sites of both processes (rank 2: call_window; churn, which had
# no rank, after it: merge's rank order), matched by stack, most calls
# first, each with its ranks.
"$REPORT" --json merge "$snap" win/final.snap >merge.json
"$REPORT" merge "$snap" win/final.snap >merge.txt
check_multi_json merge.json <<'PY'
c = d["allocation_calls"]
def site(s):  # pairs() is called from site_a and site_b
    f = [x["function"] for x in s["frames"][:2]]
    return "/".join(f) if f[0] == "pairs" else f[0]
eq([(s["calls"], s["frees"], s["present"], s["calls_by_snapshot"], site(s)) for s in c["sites"]],
   [(4000, 4000, 1, [0, 4000], "worker"),
    (150, 150, 1, [150, 0], "pairs/site_a"),
    (30, 30, 1, [30, 0], "pairs/site_b"),
    (10, 0, 1, [0, 10], "leak_in_thread")], "merged sites")
eq((c["calls"], c["frees"]), (4190, 4180), "merged totals")
eq(all("stack_id" not in s for s in c["sites"]), True, "no per-process stack ids")
PY
grep -qx 'ALLOCATION CALLS' merge.txt || fail "merge section"
grep -A1 -x '150 calls (cudaMalloc, device), 150 freed, 614,400 bytes (600.0 KiB) in all' merge.txt |
    grep -qx '    on 1 of 2 ranks: rank 2 (150)' || fail "merge site line"
grep -qx '4,190 calls, 4,180 freed, from 4 stacks, 17,044,400 bytes (16.3 MiB) made in all' merge.txt || fail "merge totals line"
# Snapshots without the record: no section, an empty member.
"$REPORT" merge old.snap old.snap | grep -q 'ALLOCATION CALLS' && fail "merge section without calls"
"$REPORT" --json merge old.snap old.snap >mold.json
check_multi_json mold.json <<'PY'
eq(d["allocation_calls"], {"calls": 0, "frees": 0, "bytes": 0, "sites": []}, "merge without calls")
PY
