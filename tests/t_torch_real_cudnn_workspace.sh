# fakecuda's cuDNN workspace policy on real PyTorch 2.14.1 (issue 44): an
# execution plan asks for FAKECUDNN_WORKSPACE_BYTES (default 0), and torch
# allocates that through its caching allocator for the convolution, on top
# of the output (tests/programs/torch_real_cudnn.py workspace).
source "$ROOT/tests/lib.sh"
torch_real_setup
prog=$ROOT/tests/programs/torch_real_cudnn.py

# One convolution: its output (8x16x32x32 floats), then that plus the
# workspace, rounded up to the allocator's 512 bytes.
expect_eq "$("$FAKECUDA/fakecuda-run" --devices 1 -- "$PY" "$prog" workspace)" "conv 524288 above 524288" \
    "a convolution with no workspace"
expect_eq "$(FAKECUDNN_WORKSPACE_BYTES=3000000 "$FAKECUDA/fakecuda-run" --devices 1 -- "$PY" "$prog" workspace)" \
    "conv 524288 above $((524288 + 3000320))" "a convolution whose plan asks for 3,000,000 bytes"
