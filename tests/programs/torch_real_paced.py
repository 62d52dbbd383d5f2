"""An elementwise AdamW loop on real PyTorch, for tests/t_torch_real_paced.sh
(issue 46: which steps get a view): FAST steps as fast as they go, then
SLOW steps that sleep SLEEP seconds each (a step waiting on a GPU), each
step keeping 4 KiB in a global list, and no snapshot call.  After each step
it prints what torch says it holds, the figures gpuleak's step view reads.

    python torch_real_paced.py FAST SLOW SLEEP"""
import sys
import time

import torch

fast, slow, sleep = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
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
        time.sleep(sleep)
    opt.step()
    print("step", i + 1, "allocated", torch.cuda.memory_allocated(), "reserved", torch.cuda.memory_reserved(),
          flush=True)
