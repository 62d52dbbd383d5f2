# Issue 45, item 3: Python lines with no setting, at sampled steps.  On real
# torch 2.14.1 under fakecuda (tests/t_torch_real.sh says how torch runs
# here), tests/programs/torch_real_sampled.py trains an nn.Linear with AdamW
# for 6 steps, keeping each step's activation (64 KiB) in a global list, and
# asks gpuleak for nothing; GPULEAK_TORCH_LINES is not set (the default,
# request), so PyTorch's recorder is on only for the steps gpuleak's step
# hook samples: step 2, then the powers of two below K and every K-th step
# (GPULEAK_STEP_LINES_EVERY, 20 by default).
#  - default: steps 2 and 4 have lines, flagged sampled, the others none;
#    the exit snapshot's PYTORCH STEPS names the kept line with its exact
#    bytes (one activation at step 2, two at step 4: the ones made in the
#    sampled steps), in text and JSON; each record's trailer counts the
#    steps recorded (1 at step 2, 2 at step 4: the growth per step is 64 KiB)
#    and K; and after the loop the recorder is off again (the program reads
#    torch._C._cuda_isHistoryEnabled());
#  - every3 (GPULEAK_STEP_LINES_EVERY=3): steps 2, 3 and 6 sampled, the
#    recorder left on from step 1's end to step 3's (2 and 3 in a row), then
#    on again for step 6 only: three activations at the kept line at step 6.
source "$ROOT/tests/lib.sh"
torch_real_setup
torch_real_default_lines
prog=$ROOT/tests/programs/torch_real_sampled.py
kept=$(site_line torch_real_sampled.py KEPT-LINE)

run_mode() { # DIR [VAR=value...]
    local dir=$1
    shift
    mkdir "$dir"
    (cd "$dir" && env "$@" "$FAKECUDA/fakecuda-run" --devices 1 -- "$LAUNCHER" run -- "$PY" "$prog" \
        >out.txt 2>err.txt) || fail "$dir: run exited $?: $(tail -3 "$dir/err.txt")"
    if grep -q '^fakecuda: ' "$dir/err.txt"; then fail "$dir: $(grep '^fakecuda: ' "$dir/err.txt")"; fi
    expect_eq "$(grep -c '^step ' "$dir/out.txt")" 6 "$dir: the loop ran"
    expect_eq "$(ls "$dir" | grep -c '\.snap$')" 1 "$dir: snapshot files (the exit snapshot only)"
    "$REPORT" --json "$dir"/*.snap >"$dir/r.json" || fail "$dir: report --json exited $?"
    "$REPORT" "$dir"/*.snap >"$dir/r.txt" || fail "$dir: report exited $?"
    sed -n '/^PYTORCH STEPS/,/^$/p' "$dir/r.txt" >"$dir/steps.txt"
}
# per step: "step lines_known lines_sampled recorded recorded_steps lines_every"
flags() { jget "$1/r.json" '" ".join("%d%s%s%s/%d/%d" % (s["step"], "L" if s["lines_known"] else "-", "S" if s["lines_sampled"] else "-", "R" if s["recorded"] else "-", s["recorded_steps"], s["lines_every"]) for s in d["torch_steps"]["steps"])'; }
growing() { jget "$1/r.json" '[(g["file"].rsplit("/", 1)[-1], g["line"], g["from_step"], g["to_step"], g["from_bytes"], g["grown_bytes"], g["count"], g["every_step"]) for g in d["torch_steps"]["growing_lines"]]'; }
# the kept line's (bytes, tensors) at each step that lists it
kept_at() { jget "$1/r.json" "[(s['step'], l['bytes'], l['count']) for s in d['torch_steps']['steps'] for l in s['lines'] if l['file'].endswith('/torch_real_sampled.py') and l['line'] == $kept]"; }

run_mode default
expect_eq "$(flags default)" "1---/0/20 2LSR/1/20 3---/1/20 4LSR/2/20 5---/2/20 6---/2/20" \
    "default: lines at the sampled steps 2 and 4 only, each recorded from the step before's end"
expect_eq "$(kept_at default)" "[[2, 65536, 1], [4, 131072, 2]]" "default: the kept line at steps 2 and 4"
expect_eq "$(growing default)" "[[\"torch_real_sampled.py\", $kept, 2, 4, 65536, 65536, 2, true]]" \
    "default: the growing lines"
expect_eq "$(tail -1 default/out.txt)" "history False" "default: PyTorch's recorder off again after the loop"
grep -qxF "Lines from gpuleak's sampled steps (2, 4; one in 20, GPULEAK_STEP_LINES_EVERY): a line's live tensors are those made in them." \
    default/steps.txt || fail "default: the sampled steps in the text report: $(cat default/steps.txt)"
grep -qxF "    +65,536 bytes (64.0 KiB): <module> (torch_real_sampled.py:$kept), grew at each one" default/steps.txt ||
    fail "default: the kept line in the text report: $(tail -3 default/steps.txt)"
grep -qxF "        65,536 bytes (64.0 KiB) -> 131,072 bytes (128.0 KiB) in 2 tensors" default/steps.txt ||
    fail "default: the kept line's bytes in the text report: $(tail -3 default/steps.txt)"

run_mode every3 GPULEAK_STEP_LINES_EVERY=3
expect_eq "$(flags every3)" "1---/0/3 2LSR/1/3 3LSR/2/3 4---/2/3 5---/2/3 6LSR/3/3" \
    "every3: lines at the sampled steps 2, 3 and 6"
expect_eq "$(kept_at every3)" "[[2, 65536, 1], [3, 131072, 2], [6, 196608, 3]]" "every3: the kept line at steps 2, 3, 6"
expect_eq "$(growing every3)" "[[\"torch_real_sampled.py\", $kept, 2, 6, 65536, 131072, 3, true]]" \
    "every3: the growing lines"
expect_eq "$(tail -1 every3/out.txt)" "history False" "every3: PyTorch's recorder off again after the loop"
