# Real PyTorch 2.14.1 on fakecuda's cuBLAS and cuBLASLt stand-ins (issue
# 44): nn.Linear, `@`, torch.bmm, an MLP and a TransformerEncoderLayer
# train 3 AdamW steps each (tests/programs/torch_real_blas.py), under
# `fakecuda-run -- gpuleak run`.  Before the stand-ins every one of them
# stopped at "CUBLAS_STATUS_NOT_INITIALIZED when calling cublasCreate".
# Kernels compute nothing, so the memory is exact and deterministic:
#   - each model's max_memory_allocated / max_memory_reserved are the bytes
#     of tests/programs/torch_real_blas.peaks (torch 2.14.1, an sm90
#     device), as in a run without gpuleak (t_torch_real_blas_bare.sh);
#   - gpuleak's snapshot after each model says what torch says at that
#     moment (tensors, segments), its device peak is the largest reserved
#     peak so far (torch's segments are all the cudaMalloc there is: the
#     stand-in allocates nothing when the caller set a workspace);
#   - the cuBLAS workspaces torch takes from its caching allocator are
#     seen, by their call stacks: 32 MiB per handle and stream (sm90), one
#     for the main thread, one for autograd's backward thread -- and after
#     each model they are all that is still allocated.
source "$ROOT/tests/lib.sh"
torch_real_setup
prog=$ROOT/tests/programs/torch_real_blas.py
WS=$((32 << 20))

run() {
    mkdir -p "$1"
    (cd "$1" && "$FAKECUDA/fakecuda-run" --devices 1 --mem 8589934592 -- "$LAUNCHER" run -- "$PY" "$prog" \
        >out.txt 2>err.txt) || fail "run $1 exited $?: $(tail -3 "$1/err.txt")"
    if grep -q '^fakecuda: ' "$1/err.txt"; then fail "$(grep '^fakecuda: ' "$1/err.txt")"; fi
}
run a
# model: max allocated, max reserved (bytes).
expect_eq "$(awk '{ print $1, $3, $4 }' a/out.txt)" "$(cat "$ROOT/tests/programs/torch_real_blas.peaks")" "peaks"

# Per snapshot: gpuleak's device peak, torch's tensors and segments, and
# the bytes allocated from torch's cuBLAS workspace stacks.
peak_so_far=0
while read -r name _ _ reserved_peak _ allocated_now reserved_now; do
    [ "$reserved_peak" -gt "$peak_so_far" ] && peak_so_far=$reserved_peak
    "$REPORT" --json --native "a/$name.snap" >"$name.json" || fail "report of $name: exit $?"
    got=$(python3 - "$name.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ws = sum(s["bytes"] for s in d["allocation_calls"]["sites"]
         if any(k in (f["function"] or "") for f in s["frames"] for k in ("getNewWorkspace", "setWorkspaceForHandle")))
print(d["devices"][0]["peak_bytes"], d["torch"]["allocated_bytes"], d["torch"]["reserved_bytes"], ws)
PY
)
    expect_eq "$got" "$peak_so_far $allocated_now $reserved_now $((2 * WS))" \
        "$name: gpuleak's device peak, torch's tensors and segments, cuBLAS workspaces"
    expect_eq "$allocated_now" "$((2 * WS))" "$name: what stays allocated after the model is gone"
done <a/out.txt
expect_eq "$(wc -l <a/out.txt)" 5 "models trained"
