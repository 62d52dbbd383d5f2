# cuDNN convolutions on real PyTorch 2.14.1 through fakecuda's cuDNN
# stand-in (issue 44): a conv-only net with cuDNN batch norm trains 3
# AdamW steps (tests/programs/torch_real_cudnn.py conv) under
# `fakecuda-run -- gpuleak run`; torch's peaks are the same in two runs,
# to the byte, and gpuleak's device peak is max_memory_reserved().
# Before the stand-in: "cuDNN error: CUDNN_STATUS_NOT_INITIALIZED".
source "$ROOT/tests/lib.sh"
torch_real_setup
prog=$ROOT/tests/programs/torch_real_cudnn.py

# report_peak SNAP: gpuleak's device 0 peak, in bytes.
report_peak() {
    "$REPORT" "$1" | sed -n 's/^device 0: peak \([0-9,]*\) bytes.*/\1/p' | tr -d ,
}
for run in 1 2; do
    mkdir "run$run"
    (cd "run$run" && "$FAKECUDA/fakecuda-run" --devices 1 --mem 8589934592 -- "$LAUNCHER" run -- "$PY" "$prog" conv \
        >out.txt 2>err.txt) || fail "run $run exited $?: $(tail -3 "run$run/err.txt")"
    if grep -q '^fakecuda' "run$run/err.txt"; then fail "$(grep '^fakecuda' "run$run/err.txt")"; fi
    read -r _ allocated reserved < <(grep '^peak ' "run$run/out.txt")
    expect_eq "$(report_peak "run$run/conv.snap")" "$reserved" "run $run: gpuleak's peak vs max_memory_reserved()"
    # 3 AdamW steps of the net at batch 16, 64x64 (what this test measured).
    expect_eq "$allocated $reserved" "40892416 44040192" "run $run: max_memory_allocated() and max_memory_reserved()"
done

