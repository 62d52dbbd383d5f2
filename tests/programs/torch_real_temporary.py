"""Real PyTorch's caching allocator against TEMPORARY ALLOCATIONS, for
tests/t_torch_real_temporary.sh: a kept 1 MiB tensor, then 10 times a
4 MiB tensor made and dropped at TEMP-LINE, then a snapshot.  With the
cache, one segment serves every iteration (no cudaFree); with
PYTORCH_NO_CUDA_MEMORY_CACHING=1 each iteration is a cudaMalloc and its
cudaFree, the loop the section is for."""
import os
import sys

import torch

sys.path.insert(0, os.environ["GPULEAK_PYTHON_DIR"])
import gpuleak_memory as gm  # noqa: E402

kept = torch.empty(256 * 1024, device="cuda")  # KEPT-LINE: 1 MiB, kept to the snapshot
for _ in range(10):
    t = torch.empty(1024 * 1024, device="cuda")  # TEMP-LINE: 4 MiB, dropped at once
    del t
assert gm._dump_snapshot("t.snap") == "t.snap"
