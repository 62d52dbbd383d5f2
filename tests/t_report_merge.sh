#!/usr/bin/env bash
# merge: three ranks of one job on two hosts (gen_ranks): totals per rank,
# host and device, the rank with the largest peak, and the stack live on
# only one rank (tie_a on rank 2).
source "$ROOT/tests/lib.sh"
mkdir r && "$TPROG/snapgen" ranks r
"$REPORT" --json merge r/r0.snap r/r1.snap r/r2.snap > m.json || fail "exit $?"
python3 - m.json <<'PY' || fail "merge JSON"
import json, sys
d = json.load(open(sys.argv[1]))
MiB = 1 << 20
assert d["mode"] == "merge"
assert [(r["rank"], r["host"], r["live_bytes"], r["peak_bytes"], r["peak_device"]) for r in d["ranks"]] == \
    [(0, "nodeA", MiB, 10 * MiB, 0), (1, "nodeA", MiB, 12 * MiB, 1), (2, "nodeB", 3 * MiB, 30 * MiB, 0)], d["ranks"]
assert [(h["host"], h["snapshots"], h["live_bytes"], h["peak_bytes_sum"]) for h in d["hosts"]] == \
    [("nodeA", 2, 2 * MiB, 22 * MiB), ("nodeB", 1, 3 * MiB, 30 * MiB)], d["hosts"]
assert [(x["host"], x["device"], x["live_bytes"]) for x in d["devices"]] == \
    [("nodeA", 0, MiB), ("nodeA", 1, MiB), ("nodeB", 0, 3 * MiB)], d["devices"]
lp = d["largest_peak"]
assert (lp["rank"], lp["host"], lp["device"], lp["peak_bytes"]) == (2, "nodeB", 0, 30 * MiB), lp
p = d["partial_stacks"]
assert [(x["frames"][0]["function"], x["bytes"], x["present"]) for x in p] == [("tie_a", [0, 0, 2 * MiB], 1)], p
PY
"$REPORT" merge r/r0.snap r/r1.snap r/r2.snap > m.txt
grep -qx 'rank 2 (pid 200, host nodeB): 31,457,280 bytes (30.0 MiB) on device 0 at 0.01 s' m.txt || fail "largest peak"
grep -qx '2,097,152 bytes (2.0 MiB) of device memory, live on 1 of 3 ranks' m.txt || fail "partial stack"
grep -qx '    not on: rank 0, rank 1' m.txt || fail "partial stack ranks"
grep -qx 'nodeA: 2 ranks (0,1), live 2,097,152 bytes (2.0 MiB), peaks summed 22.0 MiB' m.txt || fail "host line"
echo ok
