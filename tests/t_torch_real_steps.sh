# Issue 45, item 1: PyTorch's optimizer steps with no code change, on real
# torch 2.14.1 under fakecuda (tests/t_torch_real.sh says how torch runs
# here).  torch_real_steps.py trains 5 AdamW steps on an elementwise model,
# keeping each step's activation (256 KiB) in a global list, and asks
# gpuleak for nothing.  gpuleak's global step hook keeps a light view per
# step in memory, and the exit snapshot carries the series:
#  - train: the only file written is the exit snapshot; its series has
#    exactly steps 1..5, each step's allocated and reserved exactly what
#    torch's memory_allocated() and memory_reserved() printed after it,
#    allocated growing by 262,144 bytes a step; the kept line is the one
#    line that grew at every step (256 KiB -> 1.25 MiB, 5 tensors), in the
#    text report's PYTORCH STEPS and in JSON;
#  - nolines (GPULEAK_TORCH_LINES=never: PyTorch's recorder off): the same
#    5 steps and figures, lines not known, and the report says so;
#  - async (PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync, which has no
#    recorder): the same 5 steps and torch's figures, lines not known;
#  - noopt (the same loop with no optimizer): no series at all;
#  - server (tests/programs/torch_real_server.py: no optimizer, 20
#    requests 0.1 s apart, each keeping 64 KiB) with GPULEAK_STEP_INTERVAL=
#    250ms: the exit snapshot (the only file) has at least 3 time windows,
#    each flagged so, each one's allocated one of the figures torch printed
#    between requests, never decreasing, and the cache line the one line
#    that grew, with the tensors made by the last window;
#  - a snapshot written before the record existed still reads, with none.
source "$ROOT/tests/lib.sh"
torch_real_setup
prog=$ROOT/tests/programs/torch_real_steps.py
kept=$(site_line torch_real_steps.py KEPT-LINE)

run_mode() { # DIR MODE [VAR=value...]; MODE server runs torch_real_server.py
    local dir=$1 mode=$2 p=$prog
    shift 2
    [ "$mode" != server ] || p=$ROOT/tests/programs/torch_real_server.py
    mkdir "$dir"
    (cd "$dir" && env "$@" "$FAKECUDA/fakecuda-run" --devices 1 -- "$LAUNCHER" run -- "$PY" "$p" "$mode" \
        >out.txt 2>err.txt) || fail "$dir: run exited $?: $(tail -3 "$dir/err.txt")"
    if grep -q '^fakecuda: ' "$dir/err.txt"; then fail "$dir: $(grep '^fakecuda: ' "$dir/err.txt")"; fi
    expect_eq "$(ls "$dir" | grep -c '\.snap$')" 1 "$dir: snapshot files (the exit snapshot only)"
    "$REPORT" --json "$dir"/*.snap >"$dir/r.json" || fail "$dir: report --json exited $?"
    "$REPORT" "$dir"/*.snap >"$dir/r.txt" || fail "$dir: report exited $?"
}
# torch's own figures after each step, as the script printed them: "N allocated reserved"
printed() { awk '$1 == "step" { print $2, $4, $6 }' "$1/out.txt" | tr '\n' ' '; }
series() { jget "$1/r.json" '" ".join("%d %d %d" % (s["step"], s["allocated_bytes"], s["reserved_bytes"]) for s in d["torch_steps"]["steps"]) + " "'; }

run_mode train train
expect_eq "$(series train)" "$(printed train)" "train: the series (step, allocated, reserved) against torch's own"
expect_eq "$(jget train/r.json '[b["allocated_bytes"] - a["allocated_bytes"] for a, b in zip(d["torch_steps"]["steps"], d["torch_steps"]["steps"][1:])]')" \
    "[262144, 262144, 262144, 262144]" "train: allocated grows by the kept activation each step"
expect_eq "$(jget train/r.json '[(s["lines_known"], s["window"]) for s in d["torch_steps"]["steps"]]')" \
    "[[true, false], [true, false], [true, false], [true, false], [true, false]]" \
    "train: lines known at each step, none a time window"
expect_eq "$(jget train/r.json '[(g["file"].rsplit("/", 1)[-1], g["line"], g["from_step"], g["to_step"], g["from_bytes"], g["grown_bytes"], g["count"], g["every_step"]) for g in d["torch_steps"]["growing_lines"]]')" \
    "[[\"torch_real_steps.py\", $kept, 1, 5, 262144, 1048576, 5, true]]" "train: the growing lines"
sed -n '/^PYTORCH STEPS/,/^$/p' train/r.txt >steps.txt
expect_eq "$(grep -c '^    step [0-9]*:' steps.txt)" 5 "train: steps in the text report"
alloc5=$(awk '$2 == 5 { print $4 }' train/out.txt)
grep -qxF "    step 5: allocated $(python3 -c "print(f'{$alloc5:,}')") bytes (2.5 MiB), +262,144 bytes (256.0 KiB) since step 4; reserved 4,194,304 bytes (4.0 MiB)" steps.txt ||
    fail "train: step 5's line: $(grep 'step 5' steps.txt)"
grep -qxF "    +1,048,576 bytes (1.0 MiB): <module> (torch_real_steps.py:$kept), grew at each one" steps.txt ||
    fail "train: the kept line in the text report: $(tail -3 steps.txt)"

run_mode nolines train GPULEAK_TORCH_LINES=never
expect_eq "$(series nolines)" "$(printed nolines)" "nolines: the series against torch's own"
expect_eq "$(jget nolines/r.json '[(s["lines_known"], len(s["lines"])) for s in d["torch_steps"]["steps"]] + d["torch_steps"]["growing_lines"]')" \
    "[[false, 0], [false, 0], [false, 0], [false, 0], [false, 0]]" "nolines: no lines, none growing"
grep -qF "Live tensors by line: not recorded (PyTorch's recorder was off; see GPULEAK_TORCH_LINES)." nolines/r.txt ||
    fail "nolines: the report does not say lines were not recorded"

# cudaMallocAsync: PyTorch has no recorder there (asking whether it records
# raises), so the series comes without lines, as above.
run_mode async train PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync
expect_eq "$(series async)" "$(printed async)" "async: the series against torch's own"
expect_eq "$(jget async/r.json '[(s["lines_known"], len(s["lines"])) for s in d["torch_steps"]["steps"]] + d["torch_steps"]["growing_lines"]')" \
    "[[false, 0], [false, 0], [false, 0], [false, 0], [false, 0]]" "async: no lines, none growing"

run_mode noopt noopt
expect_eq "$(grep -c '^step ' noopt/out.txt)" 5 "noopt: the loop ran"
expect_eq "$(jget noopt/r.json '"torch_steps" in d')" False "noopt: no series in JSON"
if grep -q '^PYTORCH STEPS' noopt/r.txt; then fail "noopt: a PYTORCH STEPS block"; fi

run_mode server server GPULEAK_STEP_INTERVAL=250ms
cache_line=$(site_line torch_real_server.py CACHE-LINE)
expect_eq "$(grep -c '^request ' server/out.txt)" 21 "server: the loop ran"
got=$(python3 - server/r.json server/out.txt <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["torch_steps"]
printed = [int(l.split()[3]) for l in open(sys.argv[2]) if l.startswith("request ")]
a = [s["allocated_bytes"] for s in w["steps"]]
g = w["growing_lines"]
# the cache line's tensors at the last window: the requests made by then
print(len(a) >= 3, all(s["window"] for s in w["steps"]), all(x in printed for x in a), a == sorted(a),
      [(x["file"].rsplit("/", 1)[-1], x["line"]) for x in g], g[0]["count"] == (a[-1] - printed[0]) // 65536)
PY
)
expect_eq "$got" "True True True True [('torch_real_server.py', $cache_line)] True" \
    "server: at least 3 windows, all time windows, each at torch's figures, never decreasing; the cache line grew, its tensors those made by the last window"
grep -q "^    window [0-9]*: allocated" server/r.txt || fail "server: no window in the text report"

# A snapshot from before the record (the fuzz corpus's real-torch one) reads as before, with no series.
old=$ROOT/tests/fuzz/corpus/report/t-torch.snap
"$REPORT" --json "$old" >old.json || fail "old snapshot: report --json exited $?"
expect_eq "$(jget old.json '"torch_steps" in d')" False "old snapshot: no series"
"$REPORT" "$old" >old.txt || fail "old snapshot: report exited $?"
