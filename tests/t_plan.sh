# gpuleak plan (issue 44, item 4, a first slice): an unmodified PyTorch
# script (tests/programs/plan_linear.py: Linear-GELU-Linear, AdamW) swept
# over batch=1,2,4 on an h100-sxm-80gb profile, each run under fakecuda
# (--gpu, --drop-copies) and gpuleak.  In the same run, the plan's peaks are
# the script's own torch.cuda.max_memory_allocated / max_memory_reserved
# (it prints them; --keep keeps its stdout), gpuleak's device peak is the
# reserved peak (PyTorch's segments are every cudaMalloc there is), and the
# predicted device use is that + the profile's context (512 MiB).
# --steps and OOM: t_plan_oom.sh; README's recipe 4: t_plan_readme.sh (apart,
# so that each test stays short).  Before: "unknown command 'plan'".
source "$ROOT/tests/lib.sh"
torch_real_setup
prog=$ROOT/tests/programs/plan_linear.py

"$LAUNCHER" plan --gpu h100-sxm-80gb --steps 0 --keep runs --json plan.json --sweep batch=1,2,4 \
    -- "$PY" "$prog" '{batch}' 2 >table.txt 2>progress.txt || fail "plan exited $?: $(tail -3 progress.txt)"
expect_eq "$(grep -c '^gpuleak plan: \[[1-3]/3\] batch=[124]: fits, ' progress.txt)" 3 "progress lines"
expect_eq "$(head -2 table.txt)" "NVIDIA H100 80GB HBM3 (h100-sxm-80gb): 85027979264 bytes (81089.0 MiB), context 512.0 MiB
batch        peak allocated    peak reserved      device used  fits" "table head"
expect_eq "$(jget plan.json 'd["gpu"]["name"], d["gpu"]["total_bytes"], d["gpu"]["context_bytes"], len(d["runs"])')" \
    "('NVIDIA H100 80GB HBM3', 85027979264, 536870912, 3)" "the card"
for b in 1 2 4; do
    torch=$(awk '$1 == "peaks" { print $2, $3 }' "runs/batch=$b/stdout")
    [ -n "$torch" ] || fail "batch $b: the script printed no peaks: $(cat "runs/batch=$b/stdout")"
    read -r alloc reserved <<<"$torch"
    got=$(jget plan.json "[(r['values'], r['peak_allocated'], r['peak_reserved'], r['device_peak'], r['device_used'], r['fits'], r['oom'], r['exit_status']) for r in d['runs'] if r['values']['batch'] == $b][0]")
    expect_eq "$got" "({'batch': $b}, $alloc, $reserved, $reserved, $((reserved + 536870912)), True, False, 0)" "batch $b"
    row=$(awk -v b=$b '$1 == b' table.txt)
    expect_eq "$(awk '{ print $NF }' <<<"$row")" yes "batch $b's row: $row"
done

# Refusals, before anything runs: one line, exit 2.
rc=0; err=$("$LAUNCHER" plan --gpu h100 --sweep b=1 -- "$PY" "$prog" '{b}' 1 2>&1) || rc=$?
expect_eq "$rc:$err" "2:gpuleak plan: unknown GPU 'h100'; known: h100-sxm-80gb h100-pcie-80gb h200-141gb a100-40gb a100-80gb l4 rtx-4090" "unknown GPU"
rc=0; err=$("$LAUNCHER" plan --gpu l4 --sweep b=1,2 -- "$PY" "$prog" 1 1 2>&1) || rc=$?
expect_eq "$rc:$err" "2:gpuleak plan: the command never names {b}: every run would be the same" "no {b}"

