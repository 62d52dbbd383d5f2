"""Real-torch tests for tests/t_torch_real_pytest.sh: the pytest plugin's
leak and peak per test, counted in PyTorch's tensors (issue 35), not in the
segments its caching allocator takes from cudaMalloc."""
import pytest
import torch

KEPT = []


@pytest.mark.gpu_limit_leaks(0)
def test_first_keeps():
    # 4 MiB, kept; the first tensor, in a new 20 MiB segment that is not
    # this test's to pay for.  PyTorch records its stack (gpuleak turns
    # that on in torch.cuda's initialization, before this tensor).
    KEPT.append(torch.empty(1024 * 1024, device="cuda"))  # KEPT-LINE


@pytest.mark.gpu_limit_peak("1 MiB")
def test_temporary():
    t = torch.empty(4 * 1024 * 1024, device="cuda")  # 16 MiB, in the segment's cached 16 MiB: no cudaMalloc
    del t


@pytest.mark.gpu_limit_leaks("8 MiB")
def test_keeps():
    # 20 MiB, kept, in a new 20 MiB segment; PyTorch recorded its stack
    # (gpuleak turned history on once torch.cuda was initialized).
    KEPT.append(torch.empty(5 * 1024 * 1024, device="cuda"))  # KEPT-20-LINE
