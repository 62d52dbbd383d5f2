#!/usr/bin/env bash
# Memory by phase of a Python script under `gpuleak run`, annotated with
# gpuleak_memory.annotate (tests/programs/py_phases.py): each phase's peak,
# net change and nesting, exactly.
source "$ROOT/tests/lib.sh"
skip_under_san "the launcher preloads the uninstrumented library"
export FAKECUDA_RT=$FAKECUDA/libcudart.so.13
fc "$LAUNCHER" run -q --output py.snap -- python3 "$ROOT/tests/programs/py_phases.py" || fail "script exit $?"
"$REPORT" --json py.snap > py.json || fail "report exit $?"
check_json py.json <<'PY'
M = 1 << 20
P = d["phases"]["list"]
eq([(p["label"], p["depth"], p["ended_by"]) for p in P],
   [("load", 0, "end"), ("epoch 1", 0, "end"), ("forward", 1, "end"), ("backward", 1, "end"), ("step", 1, "end"),
    ("epoch 2", 0, "end"), ("forward", 1, "end"), ("backward", 1, "end"), ("step", 1, "end"), ("eval", 0, "end")],
   "phases of the script")
eq([(v["start_bytes"], v["peak_bytes"], v["end_bytes"], v["net_bytes"]) for p in P for v in p["devices"]],
   [(a * M, b * M, c * M, (c - a) * M) for a, b, c in
    [(0, 32, 32), (32, 56, 33), (32, 48, 48), (48, 56, 32), (32, 33, 33),
     (33, 57, 34), (33, 49, 49), (49, 57, 33), (33, 34, 34), (34, 40, 34)]], "start, peak, end, net")
# the epoch's peak is its backward's, in the script's own frames
bw = P[3]["devices"][0]
eq([(s["bytes"] // M, s["count"]) for s in bw["peak_stacks"]], [(32, 1), (16, 4), (8, 1)], "backward's peak")
eq(bw["peak_stacks"][2]["frames"][0]["function"], "malloc", "Python frames")
PY
echo ok
