#!/usr/bin/env bash
# diff --across-runs: two runs of one program (heaptrack_print --diff's and
# memray's A/B comparison) compared stack by stack, by function, file and
# line, since ASLR loads the program at other addresses in each run.  Run A
# of tests/programs/rank_leaks.c keeps 1 MiB at keep_all(); run B keeps the
# same and 2 MiB more at leak_some().  The only change is leak_some's: an
# unchanged keep_all matched across the runs, not one stack gone and one
# new.  Without the flag diff still refuses different processes, its one
# line naming the flag; the flag goes with diff only.  Runs of two
# different programs (rank_leaks, double_free) are compared with one
# warning line on stderr that names them, JSON "same_program": false
# (before: no word of it, issue 48 item 13); two runs of one program with
# other arguments get none.
source "$ROOT/tests/lib.sh"
run() {  # run SNAP LEAKY_RANKS
    GPULEAK_OUTPUT="$1" LD_PRELOAD=$LIBGPULEAK "$FAKECUDA/fakecuda-run" -- "$TPROG/rank_leaks" "$2" ||
        fail "$1: status $?"
}
run a.snap ""
run b.snap 0
pid_of() { "$REPORT" --json "$1" >p.json && jget p.json 'd["snapshot"]["pid"]'; }
pa=$(pid_of a.snap) && pb=$(pid_of b.snap) || fail "the pids"
host=$(jget p.json 'd["snapshot"]["host"]')
ls=$(site_line rank_leaks.c 'RANK-SITE: leak_some')
ml=$(grep -n '? leak_some() :' "$ROOT/tests/programs/rank_leaks.c" | head -1 | cut -d: -f1)
if [ "$(cat /proc/sys/kernel/randomize_va_space)" != 0 ]; then
    "$REPORT" --json a.snap >a.json && "$REPORT" --json b.snap >b.json || fail "--json of the runs"
    addr='[f["address"] for l in d["leaks"] for f in l["frames"] if f["function"] == "keep_all"]'
    [ "$(jget a.json "$addr")" != "$(jget b.json "$addr")" ] || fail "keep_all at one address in both runs (no ASLR?)"
fi

# Refused by default, the one line naming the flag.
rc=0; "$REPORT" diff a.snap b.snap >out.txt 2>err.txt || rc=$?
expect_eq "$rc:$(wc -c <out.txt):$(cat err.txt)" "2:0:gpuleak-report: diff: the snapshots come from 2 different processes (no rank, pid $pa on $host, no rank, pid $pb on $host); growth is measured between snapshots of one process: compare processes with 'merge', or two runs of one program stack by stack with 'diff --across-runs'" "diff of two runs"
rc=0; "$LAUNCHER" diff a.snap b.snap >out.txt 2>err.txt || rc=$?
expect_eq "$rc:$(cat err.txt)" "2:gpuleak-report: diff: the snapshots come from 2 different processes (no rank, pid $pa on $host, no rank, pid $pb on $host); growth is measured between snapshots of one process: compare processes with 'gpuleak merge', or two runs of one program stack by stack with 'gpuleak diff --across-runs'" "gpuleak diff of two runs"

# --across-runs: the text, exactly (the header's times left out).
rc=0; "$LAUNCHER" diff --across-runs a.snap b.snap >d.txt 2>err.txt || rc=$?
expect_eq "$rc:$(cat err.txt)" "0:" "diff --across-runs: status, stderr"
sed -E 's/, [0-9.]+ s after start$/, T s after start/' d.txt >d.norm
expect_eq "$(cat d.norm)" "==== gpuleak diff: 2 snapshots ====
  [1] a.snap: pid $pa, no rank, host $host, at exit, T s after start
  [2] b.snap: pid $pb, no rank, host $host, at exit, T s after start
same process: no (different runs)
growth per hour: none (the snapshots come from different processes, which share no clock)

BY DEVICE
device 0: live 1.0 MiB -> 3.0 MiB (+2.0 MiB), peak 2.0 MiB -> 3.0 MiB (+1.0 MiB)

CHANGES BY STACK
+2,097,152 bytes (2.0 MiB): device memory on device 0
    live bytes:  0 -> 2,097,152
    allocations: 0 -> 1
    #0 leak_some (rank_leaks.c:$ls) [rank_leaks]
    #1 main (rank_leaks.c:$ml) [rank_leaks]

ALLOCATED AFTER THE FIRST SNAPSHOT, STILL LIVE AT THE LAST
Not applicable: the first and last snapshots come from different processes.

ALLOCATION CALLS BETWEEN THE FIRST AND LAST SNAPSHOTS
Not applicable: the first and last snapshots come from different processes." "diff --across-runs"

# JSON: the same one change; --error-exitcode counts it.
"$REPORT" --json diff --across-runs a.snap b.snap >d.json || fail "--json diff --across-runs: status $?"
expect_eq "$(jget d.json '(d["same_process"], [(s["bytes"], s["count"], s["frames"][0]["function"]) for s in d["stacks"]])')" \
    "(False, [([0, 2097152], [0, 1], 'leak_some')])" "--json diff --across-runs"
rc=0; "$REPORT" --error-exitcode 5 --across-runs diff a.snap b.snap >/dev/null || rc=$?
expect_eq "$rc" 5 "--error-exitcode: leak_some grew"
rc=0; "$REPORT" --error-exitcode 5 --across-runs diff b.snap b.snap >/dev/null || rc=$?
expect_eq "$rc" 0 "--error-exitcode: one run against itself"

# Two different programs: compared, with one warning line.
GPULEAK_OUTPUT=c.snap LD_PRELOAD=$LIBGPULEAK "$FAKECUDA/fakecuda-run" -- "$TPROG/double_free" >/dev/null ||
    fail "c.snap: status $?"
warning="gpuleak-report: warning: diff --across-runs: the runs are of different programs (a.snap ran rank_leaks, c.snap ran double_free); their stacks match only where the programs share code"
rc=0; "$LAUNCHER" diff --across-runs a.snap c.snap >d2.txt 2>err.txt || rc=$?
expect_eq "$rc:$(cat err.txt):$(grep -c '^CHANGES BY STACK$' d2.txt)" "0:$warning:1" "diff --across-runs of two programs"
rc=0; "$REPORT" --json diff --across-runs a.snap b.snap c.snap >d2.json 2>err.txt || rc=$?
expect_eq "$rc:$(cat err.txt)" "0:$warning" "--json diff --across-runs of two programs: status, stderr"
expect_eq "$(jget d2.json 'd["same_program"]') $(jget d.json 'd["same_program"]')" "False True" "JSON same_program"

# The flag goes with diff only.
msg="gpuleak-report: --across-runs goes with diff (text or --json): two runs of one program compared stack by stack (try --help)"
for args in "a.snap" "merge a.snap b.snap" "--html x.html a.snap b.snap"; do
    rc=0; "$REPORT" --across-runs $args >out.txt 2>err.txt || rc=$?
    expect_eq "$rc:$(cat out.txt err.txt)" "2:$msg" "--across-runs $args"
done
[ ! -e x.html ] || fail "a page was written"
echo ok
