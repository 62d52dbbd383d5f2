# tests/programs/torch_real_blas.py (cuBLAS models on real PyTorch, issue
# 44) run on fakecuda alone, without gpuleak: the peaks are exactly those
# of the run under gpuleak (tests/t_torch_real_blas.sh), the bytes of
# tests/programs/torch_real_blas.peaks; so they are the same from run to
# run, and gpuleak changes none of them.  Under ASan the stand-ins are
# the instrumented ones, the sanitizer's runtime preloaded first (python
# leaks by design).
source "$ROOT/tests/lib.sh"
skip_if '[ "$GL_SAN" = tsan ]' "under tsan: torch's threads are not instrumented"
PY=$("$ROOT/scripts/torch-env.sh") || skip_if true "$PY"
export LD_LIBRARY_PATH=${CUDA_HOME:-/usr/local/cuda}/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
san_rt=; [ -n "$GL_SAN" ] && san_rt=${LIBGPULEAK%:*}
LD_PRELOAD=$san_rt ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
    "$FAKECUDA/fakecuda-run" --devices 1 --mem 8589934592 -- "$PY" "$ROOT/tests/programs/torch_real_blas.py" \
    >out.txt 2>err.txt || fail "run exited $?: $(tail -3 err.txt)"
if grep -q '^fakecuda: ' err.txt; then fail "$(grep '^fakecuda: ' err.txt)"; fi
expect_eq "$(awk '{ print $1, $3, $4 }' out.txt)" "$(cat "$ROOT/tests/programs/torch_real_blas.peaks")" "peaks"
# After each model only torch's two cuBLAS workspaces (32 MiB each) stay allocated.
expect_eq "$(awk '{ print $6 }' out.txt | sort -u)" "$((64 << 20))" "allocated after each model"
expect_eq "$(ls ./*.snap 2>/dev/null | wc -l)" 0 "snapshots without gpuleak"
