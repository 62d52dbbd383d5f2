"""An elementwise AdamW loop on real PyTorch, for tests/t_torch_real_paced.sh
(issue 46: which steps get a view): FAST steps as fast as they go, then
SLOW steps that each also work WORK seconds of the thread's CPU time (a
heavy step's dispatch), each step keeping 4 KiB in a global list, and no
snapshot call.  After each step it prints what torch says it holds, the
figures gpuleak's step view reads.

    python torch_real_paced.py FAST SLOW WORK"""
import sys
import time

import torch

fast, slow, work = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
w = torch.zeros(1024, device="cuda", requires_grad=True)
opt = torch.optim.AdamW([w], lr=0.01)
kept = []

for i in range(fast + slow):
    x = torch.ones(1024, device="cuda")
    h = x * w  # KEPT-LINE: 4 KiB a step, kept below
    kept.append(h.detach())
    loss = ((h - 1.0) ** 2).sum()
    opt.zero_grad()
    loss.backward()
    if i >= fast:
        t0 = time.thread_time()
        while time.thread_time() - t0 < work:
            pass
    opt.step()
    print("step", i + 1, "allocated", torch.cuda.memory_allocated(), "reserved", torch.cuda.memory_reserved(),
          flush=True)
