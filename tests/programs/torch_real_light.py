"""Real PyTorch in light mode (GPULEAK_MODE=light) with the cudaMallocAsync
backend (`gpuleak run --torch-per-tensor`), for tests/t_torch_real_light.sh:
every tensor is one cudaMallocAsync, whose stack is sampled by bytes.  The
planted line keeps one 64 KiB tensor per step, 1,000 steps; another line
makes a 32 KiB tensor a step and drops it.  It asks gpuleak for a snapshot
and prints what torch says it holds at that moment."""
import os
import sys

import torch

sys.path.insert(0, os.environ["GPULEAK_PYTHON_DIR"])
import gpuleak_memory as gm  # noqa: E402

kept = []
for i in range(1000):
    kept.append(torch.empty(16 * 1024, device="cuda"))  # PLANTED-LINE: 64 KiB per step
    y = torch.ones(8 * 1024, device="cuda")  # CHURN-LINE: 32 KiB, freed next step
torch.cuda.synchronize()
assert gm._dump_snapshot("light.snap") == "light.snap"
print("backend", torch.cuda.memory.get_allocator_backend(), "allocated", torch.cuda.memory_allocated())
