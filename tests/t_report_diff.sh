#!/usr/bin/env bash
# diff: three snapshots of one process (tests/report/snapgen_scen.inc,
# gen_diffset).  alloc_activations grows 1 -> 2 -> 4 MiB at every step and
# ranks first as "suspected leak (monotonic growth)"; tie_a (1 -> 3 -> 2
# MiB) and tie_b (only in the middle) changed but not monotonically;
# alloc_weights did not change and is not listed.  Allocations made after
# the first snapshot and still live at the last are grouped by stack.  A
# snapshot of another run: stacks still match, nothing is "new since".
source "$ROOT/tests/lib.sh"
mkdir d && "$TPROG/snapgen" diffset d
"$REPORT" --json diff d/a.snap d/b.snap d/c.snap > d.json || fail "exit $?"
python3 - d.json <<'PY' || fail "diff JSON"
import json, sys
d = json.load(open(sys.argv[1]))
MiB = 1 << 20
assert (d["format"], d["schema_version"], d["mode"], d["same_process"]) == ("gpuleak-report", 2, "diff", True), d["mode"]
assert [s["path"] for s in d["snapshots"]] == ["d/a.snap", "d/b.snap", "d/c.snap"]
got = [(s["frames"][0]["function"], s["bytes"], s["count"], s["growth"], s["monotonic"], s["suspected_leak"]) for s in d["stacks"]]
want = [("alloc_activations", [MiB, 2 * MiB, 4 * MiB], [1, 2, 3], 3 * MiB, True, True),
        ("tie_a", [MiB, 3 * MiB, 2 * MiB], [1, 2, 2], MiB, False, False),
        ("tie_b", [0, MiB // 2, 0], [0, 1, 0], 0, False, False)]
assert got == want, got
assert [(x["device"], x["present"], x["live_bytes"], x["peak_bytes"], x["peak_time_ns"], x["failed_count"])
        for x in d["devices"]] == [(0, [True] * 3, [3 * MiB, 6 * MiB + MiB // 2, 7 * MiB], [8 * MiB, 9 * MiB, 10 * MiB],
                                    [5000000] * 3, [0] * 3)], d["devices"]
n = d["new_since_first"]
assert (n["bytes"], n["count"]) == (4 * MiB, 3), n
assert [(g["frames"][0]["function"], g["bytes"], g["count"]) for g in n["groups"]] == \
    [("alloc_activations", 3 * MiB, 2), ("tie_a", MiB, 1)], n["groups"]
PY
"$REPORT" diff d/a.snap d/b.snap d/c.snap > d.txt
sed -n '/^CHANGES BY STACK$/,/^$/p' d.txt > first.txt
cat > want.txt <<'EOT'
CHANGES BY STACK
+3,145,728 bytes (3.0 MiB): device memory on device 0, suspected leak (monotonic growth)
    live bytes:  1,048,576 -> 2,097,152 -> 4,194,304
    allocations: 1 -> 2 -> 3
EOT
head -4 first.txt | diff -u want.txt - || fail "text diff"
grep -qx '+1,048,576 bytes (1.0 MiB): device memory on device 0' d.txt || fail "non-monotonic line"
expect_eq "$(sed -n '/^BY DEVICE$/{n;p}' d.txt)" \
    "device 0: live 3.0 MiB -> 6.5 MiB -> 7.0 MiB (+4.0 MiB), peak 8.0 MiB -> 9.0 MiB -> 10.0 MiB (+2.0 MiB)" "BY DEVICE"
expect_eq "$(grep -c 'suspected leak' d.txt)" 1 "one suspected leak"
grep -qx 'total: 4,194,304 bytes (4.0 MiB) in 3 allocations' d.txt || fail "new since first"
# two snapshots: growth, but never "monotonic"
"$REPORT" --json diff d/a.snap d/c.snap > two.json
expect_eq "$(jget two.json '[(s["growth"], s["monotonic"]) for s in d["stacks"]]')" '[[3145728, false], [1048576, false]]' "two snapshots"
# another run: no growth is computed across processes (issue 35 item 4):
# refused with one line naming them and what compares them, status 2,
# nothing on stdout; the same for --json and --html
other_line="gpuleak-report: diff: the snapshots come from 2 different processes (rank 0 pid 4242 on testhost, rank 0 pid 5555 on testhost); growth is measured between snapshots of one process: compare processes with 'merge', or two runs of one program stack by stack with 'diff --across-runs'"
for form in "diff" "--json diff" "--error-exitcode 7 diff"; do
    rc=0; "$REPORT" $form d/a.snap d/other.snap > o.out 2> o.err || rc=$?
    expect_eq "$rc:$(cat o.err):$(wc -c < o.out)" "2:$other_line:0" "other run refused ($form)"
done
rc=0; "$REPORT" diff d/a.snap d/b.snap d/other.snap d/c.snap > o.out 2> o.err || rc=$?
expect_eq "$rc:$(cat o.err)" "2:$other_line" "a series with another run in it"
# snapshots of one process are compared in the order they were taken, not
# in the order given (a shell glob puts gpuleak.PID.10.snap before .2):
# the same result, with a note
"$REPORT" --json diff d/c.snap d/a.snap d/b.snap > shuffled.json 2> shuffled.err || fail "shuffled exit"
expect_eq "$(cat shuffled.err)" "gpuleak-report: note: the snapshots, all of one process, are compared in the order they were taken" "reorder note"
expect_eq "$(jget shuffled.json '[s["path"] for s in d["snapshots"]]')" '["d/a.snap", "d/b.snap", "d/c.snap"]' "reordered"
expect_eq "$(jget shuffled.json 'd["stacks"]')" "$(jget d.json 'd["stacks"]')" "same rows as in order"
"$REPORT" diff d/b.snap d/a.snap > /dev/null 2> two.err
expect_eq "$(wc -l < two.err)" 1 "two snapshots reordered too"
"$REPORT" --html sh.html d/c.snap d/a.snap d/b.snap 2>/dev/null || fail "html of shuffled snapshots"
python3 - sh.html <<'PY' || fail "html: the page is the last snapshot taken, growth in order"
import json, re, sys
p = json.loads(re.search(r'id="gl-data">(.*?)</script>', open(sys.argv[1]).read(), re.S).group(1))
assert p["snapshot"]["path"] == "d/c.snap", p["snapshot"]["path"]
assert [s["path"] for s in p["growth"]["snapshots"]] == ["d/a.snap", "d/b.snap", "d/c.snap"]
PY

# devices are matched by number: one a snapshot does not have is absent
# there (rank 1's snapshot made a later one of rank 0's process: its pid,
# rank, start time and index)
mkdir r && "$TPROG/snapgen" ranks r
pid0=$(jget <("$REPORT" --json r/r0.snap) 'd["snapshot"]["pid"]')
start0=$(jget <("$REPORT" --json r/r0.snap) 'd["snapshot"]["start_unix_ns"]')
snap_set r/r1.snap r/t1.snap PROCESS 0 pid "$pid0" && snap_set r/t1.snap r/t2.snap PROCESS 0 rank 0 &&
    snap_set r/t2.snap r/t3.snap PROCESS 0 start_unix_ns "$start0" && snap_set r/t3.snap r/r1.snap PROCESS 0 index 1 ||
    fail "snap_set"
"$REPORT" diff r/r0.snap r/r1.snap | sed -n '/^BY DEVICE$/,/^$/p' > bydev.txt
printf 'BY DEVICE\ndevice 0: live 1.0 MiB -> -, peak 10.0 MiB -> -\ndevice 1: live - -> 1.0 MiB, peak - -> 12.0 MiB\n\n' |
    diff -u - bydev.txt || fail "BY DEVICE with a device per snapshot"
expect_eq "$(jget <("$REPORT" --json diff r/r0.snap r/r1.snap) '[(x["device"], x["present"], x["peak_bytes"]) for x in d["devices"]]')" \
    '[[0, [true, false], [10485760, 0]], [1, [false, true], [0, 12582912]]]' "devices JSON with absent devices"
# --top limits the list
expect_eq "$(jget <("$REPORT" --json --top 1 diff d/a.snap d/b.snap d/c.snap) 'len(d["stacks"])')" 1 "--top 1"
# usage
rc=0; "$REPORT" diff d/a.snap 2> err.txt || rc=$?
expect_eq "$rc" 2 "diff with one snapshot"; expect_eq "$(wc -l < err.txt)" 1 "one line"
rc=0; "$REPORT" diff d/a.snap nope.snap > out.txt 2> err.txt || rc=$?
expect_eq "$rc" 2 "diff with a missing file"; grep -q '^gpuleak-report: nope.snap: cannot open' err.txt || fail "missing file message"
[ ! -s out.txt ] || fail "output despite the error"
# A series ending in the exit snapshot (walk-through defect 1): s.3 is the
# exit (final) snapshot, taken after the last step, and repeats s.2; it is
# no step, so PyTorch's cache that grew 1 -> 2 -> 4 MiB is still "suspected
# leak" with it, in text, JSON and the HTML growth, and --error-exitcode
# finds it (before: no suspect, status 0).  The same repeat by a snapshot
# that is not the exit one breaks the growth.
mkdir f && "$TPROG/snapgen" finalset f
rc=0; "$REPORT" --error-exitcode 3 diff f/s.0.snap f/s.1.snap f/s.2.snap f/s.3.snap > f.txt || rc=$?
expect_eq "$rc" 3 "--error-exitcode over a series ending in the exit snapshot"
cat > want.txt <<'EOT'
CHANGES BY STACK
+3,145,728 bytes (3.0 MiB): device memory on device 0, held by pytorch-caching-allocator, suspected leak (the allocator cache grew at every step)
    live bytes:  1,048,576 -> 2,097,152 -> 4,194,304 -> 4,194,304
    allocations: 1 -> 2 -> 3 -> 3
EOT
sed -n '/^CHANGES BY STACK$/,/^$/p' f.txt | head -4 | diff -u want.txt - || fail "text diff ending in the exit snapshot"
"$REPORT" --json diff f/s.0.snap f/s.1.snap f/s.2.snap f/s.3.snap > f.json
expect_eq "$(jget f.json '[(s["bytes"], s["monotonic"], s["suspected_leak"]) for s in d["stacks"]]')" \
    "[[[1048576, 2097152, 4194304, 4194304], true, true]]" "JSON diff ending in the exit snapshot"
"$REPORT" --html f.html f/s.0.snap f/s.1.snap f/s.2.snap f/s.3.snap || fail "--html: exit $?"
python3 - f.html <<'PY' || fail "HTML growth ending in the exit snapshot"
import json, re, sys
s = open(sys.argv[1], encoding="utf-8").read()
p = json.loads(re.search(r'<script type="application/json" id="gl-data">(.*?)</script>', s, re.S).group(1))
got = [(r["bytes"], r["suspected_leak"]) for r in p["growth"]["rows"]]
assert got == [([1048576, 2097152, 4194304, 4194304], True)], got
PY
rc=0; "$REPORT" --error-exitcode 3 diff f/s.0.snap f/s.1.snap f/s.2.snap f/s.2.snap > f2.txt 2>/dev/null || rc=$?
expect_eq "$rc:$(grep -c 'suspected leak' f2.txt)" "0:0" "a repeat that is not the exit snapshot"
echo ok
