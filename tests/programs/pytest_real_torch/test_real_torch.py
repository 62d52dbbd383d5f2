"""Real-torch tests for tests/t_torch_real_pytest.sh: the pytest plugin's
peak per test, on PyTorch's caching allocator."""
import pytest
import torch

KEPT = []


def test_temporary():
    t = torch.ones(3 * 1024 * 1024, device="cuda")  # 12 MiB, its own segment, freed to the cache
    del t


@pytest.mark.gpu_limit_peak("16 MiB")
def test_keeps():
    KEPT.append(torch.empty(5 * 1024 * 1024, device="cuda"))  # 20 MiB, kept, in a new 20 MiB segment
