"""An elementwise training loop (no matmul) on real PyTorch, for
tests/t_torch_real.sh: autograd and SGD on fakecuda, with a planted leak
(one tensor per step appended to a list).  After each step it asks gpuleak
for a snapshot (gpuleak_memory._dump_snapshot, from this thread) and prints
what torch says it holds at that same moment."""
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
    assert gm._dump_snapshot("step%d.snap" % i) == "step%d.snap" % i
    print("step", i, "allocated", torch.cuda.memory_allocated(), "reserved", torch.cuda.memory_reserved())
