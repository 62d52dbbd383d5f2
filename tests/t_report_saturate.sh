#!/usr/bin/env bash
# Sums over several snapshots saturate at 2^64-1 rather than wrap, as every
# other sum does: merge's totals per host and per (host, device), and the
# growth page's live bytes per snapshot.  Hostile sizes: 2^64-1 twice gave
# 2^64-2, and 2^64-1 + 2 MiB gave 2 MiB - 1.
source "$ROOT/tests/lib.sh"
MAX=18446744073709551615
"$TPROG/snapgen" ranks .
# rank 0 (nodeA): its device's live and peak bytes (DEVICES) at the maximum
snap_set r0.snap t0.snap DEVICES 0 live_bytes $MAX
snap_set t0.snap h0.snap DEVICES 0 peak_bytes $MAX
# rank 2 (nodeB): its first allocation (ALLOCS) at the maximum, and a 2 MiB one
snap_set r2.snap h2.snap ALLOCS 0 size $MAX

# merge keeps one snapshot per process: the second nodeA rank is h0 under
# another pid
snap_set h0.snap h0b.snap PROCESS 0 pid 99
"$REPORT" --json merge h0.snap h0b.snap h2.snap > m.json || fail "merge exit $?"
check_multi_json m.json <<PY
M = $MAX
eq([(h["host"], h["live_bytes"], h["peak_bytes_sum"], h["peak_bytes_max"]) for h in d["hosts"]],
   [("nodeA", 2 * 1048576, M, M), ("nodeB", M, 31457280, 31457280)], "per host")
eq([(h["host"], h["device"], h["live_bytes"], h["peak_bytes_sum"]) for h in d["devices"]],
   [("nodeA", 0, M, M), ("nodeB", 0, 3145728, 31457280)], "per host and device")
eq([(r["live_bytes"], r["leaked_bytes"]) for r in d["ranks"]], [(1048576, 1048576)] * 2 + [(M, M)], "per rank")
PY
"$REPORT" merge h0.snap h0b.snap h2.snap > m.txt || fail "merge text exit $?"
grep -qx 'nodeB: 1 rank (2), live 18,446,744,073,709,551,615 bytes (16.0 EiB), peaks summed 30.0 MiB' m.txt ||
    fail "merge text: nodeB's live bytes: $(grep '^nodeB:' m.txt)"

"$REPORT" --html g.html h2.snap h2.snap || fail "growth page exit $?"
python3 - g.html <<PY || fail "growth page"
import json, re, sys
html = open(sys.argv[1]).read()
d = json.loads(re.search(r'<script type="application/json" id="gl-data">(.*?)</script>', html, re.S).group(1))
got = [s["live_bytes"] for s in d["growth"]["snapshots"]]
if got != [$MAX] * 2:
    sys.exit("FAIL: growth live bytes %r" % got)
PY
echo ok
