# gpuleak plan (issue 44, item 4): --steps 1 ends a script that would
# train forever (tests/programs/plan_linear.py BATCH 0) inside its first
# optimizer step, exit 0; and a batch that does not fit a 700 MiB L4 (less
# its 384 MiB context) is OOM -- the script raised torch.OutOfMemoryError
# on the card's memory -- not "fits", in the JSON and the table.  Before:
# "unknown command 'plan'".  The run that ran out of memory before its
# first step still has its composition's parameters (the optimizer's, noted
# at exit: 512 x 2048 x 4 + 2048 x 4 + 2048 x 512 x 4 + 512 x 4 bytes), no
# gradients or optimizer state yet (before: its parameters were counted as
# activations, 0 as parameters).
source "$ROOT/tests/lib.sh"
torch_real_setup
prog=$ROOT/tests/programs/plan_linear.py
"$LAUNCHER" plan --gpu l4 --gpu-memory 700MiB --steps 1 --keep small --json small.json --sweep batch=1,64 \
    -- "$PY" "$prog" '{batch}' 0 >small.txt 2>small.err || fail "plan exited $?: $(tail -3 small.err)"
expect_eq "$(jget small.json '[(r["steps"], r["exit_status"], r["fits"], r["oom"]) for r in d["runs"]]')" \
    "[[1, 0, true, false], [0, 1, false, true]]" "one step; out of memory"
expect_eq "$(cat small/batch=1/stdout)" "" "ended inside the first step"
grep -q '^torch.OutOfMemoryError: CUDA out of memory' small/batch=64/stderr || fail "batch 64: $(tail -2 small/batch=64/stderr)"
expect_eq "$(awk '$1 == 64 { print $NF }' small.txt)" OOM "batch 64's row"
expect_eq "$(jget small.json '[(c["parameters"], c["gradients"], c["optimizer_state"]) for c in [d["runs"][1]["composition"]]]')" \
    "[[8398848, 0, 0]]" "batch 64's composition: the parameters, before any step"
