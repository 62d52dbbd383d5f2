# The pytest plugin (tools/pytest_gpuleak.py) on real PyTorch 2.14.1 (issue
# 33), on fakecuda (tests/t_torch_real.sh says how torch runs here), with
# the venv's pytest.  Each test's peak is exact: 12 MiB for the freed
# temporary, 20 MiB for the kept tensor (a new segment each); the kept
# tensor sits in PyTorch's cache, which the plugin does not count as a leak
# (0 bytes, as for every allocator cache); gpu_limit_peak("16 MiB") fails
# the 20 MiB test with the exact bytes.
source "$ROOT/tests/lib.sh"
skip_under_san "the launcher preloads libgpuleak.so alone, and torch's libraries are not sanitized"
PY=$("$ROOT/scripts/torch-env.sh") || skip_if true "$PY"
skip_if "! $PY -c 'import pytest' 2>/dev/null" "the torch venv has no pytest"
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export LD_LIBRARY_PATH=$CUDA_HOME/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
cp "$ROOT/tests/programs/pytest_real_torch/test_real_torch.py" .

rc=0
timeout -k 5 120 "$FAKECUDA/fakecuda-run" --devices 1 -- "$LAUNCHER" run --quiet -- \
    "$PY" -m pytest -p pytest_gpuleak -p no:cacheprovider --gpuleak -q test_real_torch.py >out.txt 2>err.txt || rc=$?
expect_eq "$rc" 1 "pytest's status (one test over its limit) ($(tail -3 err.txt))"
if grep -q '^fakecuda: ' err.txt; then fail "$(grep '^fakecuda: ' err.txt)"; fi
expect_eq "$(grep -E '^peak ' out.txt)" "peak   20.0 MiB  leaked        0 B in 0 allocations  test_real_torch.py::test_keeps
peak   12.0 MiB  leaked        0 B in 0 allocations  test_real_torch.py::test_temporary" "the summary's peaks and leaks"
expect_eq "$(grep '^gpuleak: peak' out.txt)" \
    "gpuleak: peak device memory 20.0 MiB (20971520 bytes) is over the limit of 16.0 MiB (16777216 bytes)" "the peak failure"
grep -q '^1 failed, 1 passed' out.txt || fail "outcomes: $(tail -1 out.txt)"
