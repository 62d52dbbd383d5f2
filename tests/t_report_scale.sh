#!/usr/bin/env bash
# diff, merge and the growth page over long series of snapshots: memory
# linear in what is read, and a page of bounded size.  A long job's
# snapshots share few stacks; tables of (stacks x snapshots) took 3.3 GB
# for 400 snapshots of 500 distinct stacks each (42 MB read), and 1,000
# small snapshots made a 10 MB page that took 50 s to load.
source "$ROOT/tests/lib.sh"

# 120 snapshots of one process, 250 stacks each: 2 in every snapshot (they
# grow 256 bytes a snapshot), 298 in that snapshot only (tests/report/
# snapgen_series.inc); invalid frees on the first 256, teardown leaks and
# allocation calls on every stack.
N=120 S=250
mkdir s && "$TPROG/snapgen" series s $N $S 4 || fail "snapgen series"
input=$(cat s/*.snap | wc -c)
# Memory linear in the input: 64 MiB + 8 times what is read.  This reads
# 6.8 MB and needs less than 80 MB of address space (33 MB resident); the
# dense tables needed 218 MB (diff) and 248 MB (merge) resident here.
limit_kb=$(( 65536 + input * 8 / 1024 ))
limited() {
    if [ -n "$GL_SAN" ]; then "$@"; return; fi  # the sanitizer reserves terabytes
    ( ulimit -v "$limit_kb"; exec "$@" )
}
echo "input $input bytes, address space limit $limit_kb KiB"

limited "$REPORT" --top 3 diff s/*.snap > d.txt 2> d.err || fail "diff: exit $? ($(cat d.err))"
[ ! -s d.err ] || fail "diff wrote to stderr: $(cat d.err)"
# the two growing stacks first, the rest each in one snapshot only
grep -c 'suspected leak (monotonic growth)$' d.txt | grep -qx 2 || fail "diff: two suspected leaks"
expect_eq "$(grep -m1 '^+' d.txt)" "+$(python3 -c "print(format(256 * ($N - 1), ','))") bytes (29.8 KiB): device memory on device 0, suspected leak (monotonic growth)" \
    "diff: first row"
want=$(python3 -c "print(' -> '.join(format(4096 + 256 * i, ',') for i in range($N)))")
expect_eq "$(grep -m1 '^    live bytes:' d.txt | sed 's/^    live bytes:  //')" "$want" "diff: the first row's bytes in every snapshot"
changed=$(( 2 + N * (S - 2) ))
grep -qx "($(( changed - 3 )) more changed stacks not shown: see --top / --min-bytes)" d.txt ||
    fail "diff: $changed changed stacks"
nbad=$(( S < 256 ? S : 256 ))
frees=$(( 2 + N * (nbad - 2) ))
grep -qx "($(python3 -c "print(format($frees - 3, ','))") more changed stacks not shown; --top N shows more)" d.txt ||
    fail "diff: $frees changed invalid-free sites"
grep -qx "($(python3 -c "print(format($changed - 3, ','))") more changed stacks not shown; --top N shows more)" d.txt ||
    fail "diff: $changed changed teardown sites"

# merge keeps one snapshot per process: the same series, snapshot i rank i's
mkdir r && "$TPROG/snapgen" rankseries r $N $S 4 || fail "snapgen rankseries"
limited "$REPORT" --top 3 merge r/*.snap > m.txt 2> m.err || fail "merge: exit $? ($(cat m.err))"
[ ! -s m.err ] || fail "merge wrote to stderr: $(cat m.err)"
expect_eq "$(grep -c '^rank [0-9]* (pid 4242, host testhost, r/s' m.txt)" "$N" "merge: one line per snapshot"
# snapshot i: 4096 + 8192 + 2 * 256 * i + 298 * 4096 bytes
last=$(python3 -c "print(format(4096 + 8192 + 512 * ($N - 1) + ($S - 2) * 4096, ','))")
grep -q "^rank $((N - 1)) (pid 4242, host testhost, r/s00$((N - 1)).snap): live $last bytes" m.txt || fail "merge: last rank's live bytes"
live=$(python3 -c "print(format(sum(4096 + 8192 + 512 * i + ($S - 2) * 4096 for i in range($N)), ','))")
grep -q "^testhost: $N ranks (.*), live $live bytes" m.txt || fail "merge: the host's live bytes ($live)"
# calls per site: N and 2N (the shared stacks), k + 1 (the others); 3 shown
calls=$(python3 -c "
c = sorted([$N, 2 * $N] + [k + 1 for i in range($N) for k in range(2, $S)])
print(format(sum(c[:-3]), ','))")
grep -qx "($(python3 -c "print(format($changed - 3, ','))") more stacks with $calls calls not shown; --top N shows more)" m.txt ||
    fail "merge: allocation calls of $changed sites"

# Row values are kept per snapshot that has them: a short series, whole
mkdir t && "$TPROG/snapgen" series t 5 4 2
"$REPORT" --json diff t/*.snap > t.json || fail "short diff"
check_multi_json t.json <<'PY'
rows = [(s["device"], s["bytes"], s["count"], s["growth"], s["suspected_leak"]) for s in d["stacks"]]
eq(rows[:6], [(0, [4096, 4352, 4608, 4864, 5120], [1] * 5, 1024, True),
              (1, [8192, 8448, 8704, 8960, 9216], [1] * 5, 1024, True),
              (0, [0, 0, 0, 0, 4096], [0, 0, 0, 0, 1], 4096, False),
              (1, [0, 0, 0, 0, 4096], [0, 0, 0, 0, 1], 4096, False),
              (0, [4096, 0, 0, 0, 0], [1, 0, 0, 0, 0], -4096, False),
              (1, [4096, 0, 0, 0, 0], [1, 0, 0, 0, 0], -4096, False)], "diff rows")
eq(len(rows), 2 + 5 * 2, "diff rows: every changed stack")
eq([(x["device"], x["present"], x["live_bytes"]) for x in d["devices"]],
   [(0, [True] * 5, [8192, 8448, 8704, 8960, 9216]), (1, [True] * 5, [12288, 12544, 12800, 13056, 13312])], "devices")
eq(d["invalid_frees"]["count"], [4, 6, 8, 10, 12], "invalid frees per snapshot")
eq([(s["count"], s["change"]) for s in d["invalid_frees"]["sites"]][:4],
   [([1, 2, 3, 4, 5], 4), ([1, 2, 3, 4, 5], 4), ([1, 0, 0, 0, 0], -1), ([1, 0, 0, 0, 0], -1)], "invalid-free sites")
eq([(g["bytes"], g["count"], g["change"]) for g in d["teardown_leaks"]["groups"]][:3],
   [([1024, 2048, 3072, 4096, 5120], [1] * 5, 4096), ([1024, 2048, 3072, 4096, 5120], [1] * 5, 4096),
    ([1024, 0, 0, 0, 0], [1, 0, 0, 0, 0], -1024)], "teardown sites")
PY
mkdir tr && "$TPROG/snapgen" rankseries tr 5 4 2
"$REPORT" --json merge tr/*.snap > tm.json || fail "short merge"
check_multi_json tm.json <<'PY'
ps = [(s["bytes"], s["count"], s["present"]) for s in d["partial_stacks"]]
eq(ps[:3], [([4096, 0, 0, 0, 0], [1, 0, 0, 0, 0], 1), ([4096, 0, 0, 0, 0], [1, 0, 0, 0, 0], 1),
            ([0, 4096, 0, 0, 0], [0, 1, 0, 0, 0], 1)], "partial stacks")
eq(len(ps), 5 * 2, "partial stacks: those in some snapshots only")
eq([(s["calls"], s["present"], s["calls_by_snapshot"]) for s in d["allocation_calls"]["sites"]][:3],
   [(10, 5, [2] * 5), (5, 5, [1] * 5), (4, 1, [4, 0, 0, 0, 0])], "allocation calls by snapshot")
PY

# The growth page: at most 32 snapshot columns (the first, the last and
# evenly spaced ones between) and 1,000 rows a table, whatever the series.
mkdir h && "$TPROG/snapgen" series h 500 4 4
limited "$REPORT" --html h.html h/*.snap 2> h.err || fail "growth page: exit $? ($(cat h.err))"
size=$(stat -c %s h.html)
echo "growth page of 500 snapshots: $size bytes"
[ "$size" -lt $((1 << 20)) ] || fail "growth page of 500 snapshots is $size bytes (bound: 1 MiB)"
python3 - h.html <<'PY' || fail "growth page data"
import json, re, sys
html = open(sys.argv[1]).read()
d = json.loads(re.search(r'<script type="application/json" id="gl-data">(.*?)</script>', html, re.S).group(1))
g = d["growth"]
def eq(got, want, what):
    if got != want:
        sys.exit("FAIL: %s: got %r, expected %r" % (what, got, want))
eq(d["limits"]["snapshot_columns"], 32, "limit")
eq(g["snapshots_total"], 500, "snapshots")
cols = [c * 499 // 31 + 1 for c in range(32)]
eq([s["number"] for s in g["snapshots"]], cols, "columns: the first, the last, evenly spaced")
eq([s["path"] for s in g["snapshots"]][-1], "h/s00499.snap", "last column")
eq((g["rows"][0]["bytes"], g["rows"][0]["suspected_leak"]), ([4096 + 256 * (n - 1) for n in cols], True), "growth row")
eq(g["rows_total"], 2 + 500 * 2, "rows")
eq(len(g["rows"]), 1000, "rows on the page")
eq({len(r["bytes"]) for r in g["rows"]} | {len(r["count"]) for r in g["frees"]} | {len(x["live"]) for x in g["devices"]},
   {32}, "every series has the columns only")
eq([s["live_bytes"] for s in g["snapshots"]], [4096 + 8192 + 2 * 4096 + 512 * (n - 1) for n in cols], "live")
PY
echo ok
