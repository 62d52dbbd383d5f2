# gpuleak plan's composition at the peak (issue 44, item 4): two
# Linear(256, 256) layers and AdamW (tests/programs/plan_mlp.py, batch 64,
# 2 steps) on an h100-sxm-80gb profile.  PyTorch's allocated peak is the
# first step's optimizer step: the parameters and gradients (2 x 263,168
# bytes each), AdamW's exp_avg and exp_avg_sq (4 x 263,168), the two 32
# MiB cuBLAS/cuBLASLt workspaces PyTorch took from its cache, and as
# activations AdamW's foreach temporaries (one per parameter, at the
# opt.step() line), the input, the output and the loss.  The parts, the
# allocator's slack (peak reserved - peak allocated), the workspaces
# outside PyTorch's cache (none) and the context sum to device used.  No
# warning: the script reads no device value.  Warnings: t_plan_warnings.sh.
# Before: no "composition" in the JSON (KeyError), no composition block.
source "$ROOT/tests/lib.sh"
torch_real_setup
prog=$ROOT/tests/programs/plan_mlp.py
"$LAUNCHER" plan --gpu h100-sxm-80gb --steps 2 --json plan.json --sweep batch=64 \
    -- "$PY" "$prog" '{batch}' >table.txt 2>progress.txt || fail "plan exited $?: $(tail -3 progress.txt)"
c='d["runs"][0]["composition"]'
expect_eq "$(jget plan.json "$c.get('error')")" None "the replay matched PyTorch's counters"
layer=263168
expect_eq "$(jget plan.json "($c['parameters'], $c['gradients'], $c['optimizer_state'], $c['workspaces_pytorch'], $c['workspaces_outside'], $c['context'])")" \
    "($((2 * layer)), $((2 * layer)), $((4 * layer)), 67108864, 0, 536870912)" "parameters, gradients, AdamW state, workspaces, context"
expect_eq "$(jget plan.json "[(l['function'], l['file'].rsplit('/', 1)[-1], l['line'], l['bytes']) for l in $c['activations_by_line']]")" \
    '[["<module>", "plan_mlp.py", 18, '$((2 * layer))'], ["<module>", "plan_mlp.py", 13, 65536], ["<module>", "plan_mlp.py", 15, 65536], ["<module>", "plan_mlp.py", 16, 512]]' \
    "activations by line: AdamW's temporaries, x, y, the loss"
expect_eq "$(jget plan.json "$c['activations'] == sum(l['bytes'] for l in $c['activations_by_line'])")" True "activations = their lines"
expect_eq "$(jget plan.json "[r['peak_allocated'] - ($c['parameters'] + $c['gradients'] + $c['optimizer_state'] + $c['activations'] + $c['workspaces_pytorch']) for r in d['runs']]")" \
    "[0]" "the allocated peak's parts"
expect_eq "$(jget plan.json "[($c['allocator_slack'] == r['peak_reserved'] - r['peak_allocated'], r['device_used'] - sum($c[k] for k in ('parameters', 'gradients', 'optimizer_state', 'activations', 'workspaces', 'allocator_slack', 'context'))) for r in d['runs']]")" \
    "[[true, 0]]" "the parts sum to device used"
slack=$(jget plan.json "$c['allocator_slack']")
expect_eq "$(sed -n '/^composition at the peak:$/,$p' table.txt)" "composition at the peak:
                parameters       gradients optimizer state     activations      workspaces allocator slack         context
batch=64           0.5 MiB         0.5 MiB         1.0 MiB         0.6 MiB        64.0 MiB $(awk -v s="$slack" 'BEGIN { printf "%11.1f MiB", s / 1048576 }')       512.0 MiB
batch=64 activations by line: 0.5 MiB <module> (plan_mlp.py:18), 0.1 MiB <module> (plan_mlp.py:13), 0.1 MiB <module> (plan_mlp.py:15)" "the composition block"
expect_eq "$(jget plan.json 'd["runs"][0]["warnings"]')" "[]" "no warnings"
