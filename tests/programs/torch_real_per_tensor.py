"""Real PyTorch under `gpuleak run --torch-per-tensor`
(backend:cudaMallocAsync), for tests/t_torch_real_per_tensor.sh: the
elementwise autograd + SGD loop of torch_real_train.py, with a planted list
that keeps one 512 KiB tensor per step.  It asks gpuleak for a snapshot
and prints what torch says it holds at that moment."""
import os
import sys

import torch

sys.path.insert(0, os.environ["GPULEAK_PYTHON_DIR"])
import gpuleak_memory as gm  # noqa: E402

w = torch.zeros(64 * 1024, device="cuda", requires_grad=True)  # WEIGHTS-LINE: 256 KiB
opt = torch.optim.SGD([w], lr=0.01, momentum=0.9)
kept = []

for i in range(3):
    x = torch.ones(64 * 1024, device="cuda")  # INPUT-LINE
    loss = ((x * w - 1.0) ** 2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    kept.append(torch.empty(128 * 1024, device="cuda"))  # PLANTED-LINE: 512 KiB per step
torch.cuda.synchronize()
assert gm._dump_snapshot("per_tensor.snap") == "per_tensor.snap"
print("backend", torch.cuda.memory.get_allocator_backend(), "allocated", torch.cuda.memory_allocated())
