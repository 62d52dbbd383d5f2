# cuDNN attention on real PyTorch 2.14.1 through fakecuda's cuDNN stand-in
# (issue 44): on fakecuda's sm90 device torch picks CUDNN_ATTENTION by
# itself for bf16 scaled_dot_product_attention, and its forward and
# backward run (cudnn-frontend's graphs, heuristics, plans and execution
# on the backend API; FAKECUDNN_TRACE shows the execution); torch's peaks
# are exact and gpuleak's device peak is max_memory_reserved().
# Before the stand-in: "cuDNN error: CUDNN_STATUS_NOT_INITIALIZED".
source "$ROOT/tests/lib.sh"
torch_real_setup
prog=$ROOT/tests/programs/torch_real_cudnn.py

FAKECUDNN_TRACE=1 "$FAKECUDA/fakecuda-run" --devices 1 --mem 8589934592 -- "$LAUNCHER" run -- "$PY" "$prog" sdpa \
    >out.txt 2>err.txt || fail "run exited $?: $(tail -3 err.txt)"
if grep -q '^fakecuda: ' err.txt; then fail "$(grep '^fakecuda: ' err.txt)"; fi
expect_eq "$(grep '^backend ' out.txt)" "backend CUDNN_ATTENTION" "the backend torch picks"
expect_eq "$(grep -c '^fakecudnn: cudnnBackendExecute $' err.txt)" 1 "cuDNN executed a plan (traced once)"
# Forward and backward: the frontend's graphs were finalized as plans.
expect_eq "$(grep -c '^fakecudnn: cudnnBackendFinalize desc 5 ' err.txt)" 1 "execution plans finalized (traced once)"
read -r _ allocated reserved < <(grep '^peak ' out.txt)
expect_eq "$allocated $reserved" "25233408 44040192" "max_memory_allocated() and max_memory_reserved()"
peak=$("$REPORT" sdpa.snap | sed -n 's/^device 0: peak \([0-9,]*\) bytes.*/\1/p' | tr -d ,)
expect_eq "$peak" "$reserved" "gpuleak's peak vs max_memory_reserved()"
