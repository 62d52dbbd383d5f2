# Issue 45, item 3: a snapshot request while gpuleak's sampler has
# PyTorch's recorder on (tests/t_torch_real_sampled.sh) makes the recorder
# gpuleak's for good, as a request does with the recorder off
# (docs/pytorch.md, "When tensors get their lines"): the sampler hands it
# over instead of turning it off.  tests/programs/torch_real_sampled.py
# request, 6 AdamW steps of an nn.Linear keeping 64 KiB a step, asks for a
# snapshot right after step 1 (the recorder on for the sampled step 2),
# GPULEAK_TORCH_LINES not set:
#  - step 1 has no lines; step 2 has them from the sampler's recorder
#    (flagged sampled); steps 3 to 6 have them too, none sampled (no
#    sampling once the recorder is gpuleak's: lines_every 0), each recorded
#    from the step before; the kept line holds one more activation a step,
#    from step 2's; and after the loop the recorder is still on.
source "$ROOT/tests/lib.sh"
torch_real_setup
torch_real_default_lines
prog=$ROOT/tests/programs/torch_real_sampled.py
kept=$(site_line torch_real_sampled.py KEPT-LINE)

(env "$FAKECUDA/fakecuda-run" --devices 1 -- "$LAUNCHER" run --output 'exit.snap' -- "$PY" "$prog" request \
    >out.txt 2>err.txt) || fail "run exited $?: $(tail -3 err.txt)"
if grep -q '^fakecuda: ' err.txt; then fail "$(grep '^fakecuda: ' err.txt)"; fi
expect_eq "$(grep -c '^step ' out.txt)" 6 "the loop ran"
[ -f request.snap ] || fail "no request snapshot: $(ls)"
"$REPORT" --json exit.snap >r.json || fail "report --json exited $?"
expect_eq "$(jget r.json '" ".join("%d%s%s%s/%d/%d" % (s["step"], "L" if s["lines_known"] else "-", "S" if s["lines_sampled"] else "-", "R" if s["recorded"] else "-", s["recorded_steps"], s["lines_every"]) for s in d["torch_steps"]["steps"])')" \
    "1---/0/20 2LSR/1/0 3L-R/2/0 4L-R/3/0 5L-R/4/0 6L-R/5/0" \
    "lines from step 2 on: the sampler's at step 2, the request's after"
expect_eq "$(jget r.json "[(s['step'], l['bytes'], l['count']) for s in d['torch_steps']['steps'] for l in s['lines'] if l['file'].endswith('/torch_real_sampled.py') and l['line'] == $kept]")" \
    "[[2, 65536, 1], [3, 131072, 2], [4, 196608, 3], [5, 262144, 4], [6, 327680, 5]]" \
    "the kept line, one more activation a step from step 2's"
expect_eq "$(tail -1 out.txt)" "history True" "PyTorch's recorder still on after the loop (the request's)"
