# Issue 45, item 4: a program that records PyTorch's history itself, with
# its default stacks="all" (C++ frames) and max_entries, keeps its recorder
# as it set it while gpuleak samples lines (tests/t_torch_real_sampled.sh):
# gpuleak finds the recorder on, only reads it, and takes Python frames from
# it.  tests/programs/torch_real_sampled.py own, 6 AdamW steps of an
# nn.Linear keeping 64 KiB a step, GPULEAK_TORCH_LINES not set:
#  - own: after the loop PyTorch's recorder is still on, its trace is
#    max_entries (40) long, its last entry is the allocation made after the
#    loop with C++ frames (torch::unwind::unwind()): every setting as the
#    program left it; every step has lines, none flagged sampled (the
#    recorder is the program's), and every line is a Python one (a .py
#    file; no C++ frame such as torch::unwind::unwind() names a line): the
#    kept line holds one more activation at each step;
#  - off (GPULEAK_STEP_LINES_EVERY=0, no program recorder): no sampling, no
#    lines, as before the sampler existed.  GPULEAK_TORCH_SETTLE=1h: on a
#    loaded machine two allocations 10 s apart (the default) count as
#    growth, a request, which turns the recorder on for good (as
#    t_torch_real_growth and t_doc_torch set it).
source "$ROOT/tests/lib.sh"
torch_real_setup
unset GPULEAK_TORCH_LINES # the default: no setting
prog=$ROOT/tests/programs/torch_real_sampled.py
kept=$(site_line torch_real_sampled.py KEPT-LINE)

run_mode() { # DIR ARG [VAR=value...]
    local dir=$1 arg=$2
    shift 2
    mkdir "$dir"
    (cd "$dir" && env "$@" "$FAKECUDA/fakecuda-run" --devices 1 -- "$LAUNCHER" run -- "$PY" "$prog" $arg \
        >out.txt 2>err.txt) || fail "$dir: run exited $?: $(tail -3 "$dir/err.txt")"
    if grep -q '^fakecuda: ' "$dir/err.txt"; then fail "$dir: $(grep '^fakecuda: ' "$dir/err.txt")"; fi
    expect_eq "$(grep -c '^step ' "$dir/out.txt")" 6 "$dir: the loop ran"
    "$REPORT" --json "$dir"/*.snap >"$dir/r.json" || fail "$dir: report --json exited $?"
}

run_mode own own
expect_eq "$(tail -2 own/out.txt | tr '\n' ' ')" "history True entries 40 cxx True probe True " \
    "own: the program's recorder as it set it (on, max_entries=40, stacks=all)"
expect_eq "$(jget own/r.json '[(s["lines_known"], s["lines_sampled"]) for s in d["torch_steps"]["steps"]]')" \
    "[[true, false], [true, false], [true, false], [true, false], [true, false], [true, false]]" \
    "own: lines at every step, none of them gpuleak's sampled ones"
expect_eq "$(jget own/r.json 'sorted({(l["file"].rsplit("/", 1)[-1], l["function"]) for s in d["torch_steps"]["steps"] for l in s["lines"] if l["line"]})')" \
    '[["torch_real_sampled.py", "<module>"]]' "own: every line a Python one, of the program"
expect_eq "$(jget own/r.json '[l for s in d["torch_steps"]["steps"] for l in s["lines"] if not l["file"].endswith(".py") and (l["line"] or l["file"] or l["function"])]')" \
    "[]" "own: no line named by a C++ frame"
expect_eq "$(jget own/r.json "[l['count'] for s in d['torch_steps']['steps'] for l in s['lines'] if l['line'] == $kept]")" \
    "[2, 3, 4, 5, 6, 7]" "own: the kept line's tensors, one more a step"
expect_eq "$(jget own/r.json '[(g["line"], g["grown_bytes"], g["every_step"]) for g in d["torch_steps"]["growing_lines"]]')" \
    "[[$kept, 327680, true]]" "own: the kept line grew 64 KiB a step, from step 1 to 6"

run_mode off "" GPULEAK_STEP_LINES_EVERY=0 GPULEAK_TORCH_SETTLE=1h
expect_eq "$(jget off/r.json '[(s["lines_known"], s["lines_sampled"], s["lines_every"]) for s in d["torch_steps"]["steps"]]')" \
    "[[false, false, 0], [false, false, 0], [false, false, 0], [false, false, 0], [false, false, 0], [false, false, 0]]" \
    "off: no sampled lines"
expect_eq "$(tail -1 off/out.txt)" "history False" "off: PyTorch's recorder never turned on"
