# The pytest plugin (tools/pytest_gpuleak.py) on real PyTorch 2.14.1 (issue
# 33), on fakecuda (tests/t_torch_real.sh says how torch runs here), with
# the venv's pytest.  Issue 35: the plugin counts PyTorch's tensors, not the
# segments its cache takes from cudaMalloc:
#  - test_first_keeps keeps 4 MiB (in a 20 MiB segment): gpu_limit_leaks(0)
#    fails with exactly 4 MiB, at its line (the first tensor: PyTorch's
#    recorder is on before it is made), and its peak is 4 MiB, not the
#    segment's 20;
#  - test_temporary's 16 MiB temporary reuses the cached rest of that
#    segment (no cudaMalloc at all): its peak is 16 MiB, over its 1 MiB;
#  - test_keeps keeps 20 MiB: gpu_limit_leaks("8 MiB") fails with the exact
#    bytes at the line PyTorch recorded for the tensor.
source "$ROOT/tests/lib.sh"
torch_real_env
skip_if "! $PY -c 'import pytest' 2>/dev/null" "the torch venv has no pytest"
cp "$ROOT/tests/programs/pytest_real_torch/test_real_torch.py" .
line() { grep -n "$1" test_real_torch.py | head -1 | cut -d: -f1; }

rc=0
guard 120 "$FAKECUDA/fakecuda-run" --devices 1 -- "$LAUNCHER" run --quiet -- \
    "$PY" -m pytest -p pytest_gpuleak -p no:cacheprovider --gpuleak -q test_real_torch.py >out.txt 2>err.txt || rc=$?
expect_eq "$rc" 1 "pytest's status (tests over their limits) ($(tail -3 err.txt))"
if grep -q '^fakecuda: ' err.txt; then fail "$(grep '^fakecuda: ' err.txt)"; fi
expect_eq "$(grep -E '^peak ' out.txt)" "peak   20.0 MiB  leaked   20.0 MiB in 1 allocation  test_real_torch.py::test_keeps
peak   16.0 MiB  leaked        0 B in 0 allocations  test_real_torch.py::test_temporary
peak    4.0 MiB  leaked    4.0 MiB in 1 allocation  test_real_torch.py::test_first_keeps" "the summary's peaks and leaks"
expect_eq "$(grep -A1 '^gpuleak: leaked' out.txt)" "gpuleak: leaked 4.0 MiB (4194304 bytes in 1 allocation), over the limit of 0 bytes:
    4194304 bytes in 1 allocation at test_first_keeps test_real_torch.py:$(line KEPT-LINE)
--
gpuleak: leaked 20.0 MiB (20971520 bytes in 1 allocation), over the limit of 8388608 bytes:
    20971520 bytes in 1 allocation at test_keeps test_real_torch.py:$(line KEPT-20-LINE)" "the leak failures"
expect_eq "$(grep '^gpuleak: peak' out.txt)" \
    "gpuleak: peak device memory 16.0 MiB (16777216 bytes) is over the limit of 1.0 MiB (1048576 bytes)" "the peak failure"
grep -q '^3 failed in' out.txt || fail "outcomes: $(tail -1 out.txt)"
