"""An elementwise AdamW loop on real PyTorch (no matmul), for
tests/t_torch_real_steps.sh: 5 steps, each keeping its activation in a
global list (256 KiB a step), and no snapshot call.  After each step it
prints what torch says it holds, the figures gpuleak's step hook sees.
`python torch_real_steps.py noopt` runs the same loop with no optimizer."""
import sys

import torch

train = sys.argv[1] == "train"
w = torch.zeros(64 * 1024, device="cuda", requires_grad=True)  # 256 KiB of weights
opt = torch.optim.AdamW([w], lr=0.01) if train else None
kept = []

for i in range(5):
    x = torch.ones(64 * 1024, device="cuda")
    h = x * w  # KEPT-LINE: 256 KiB a step, kept below
    kept.append(h.detach())
    loss = ((h - 1.0) ** 2).sum()
    if train:
        opt.zero_grad()
        loss.backward()
        opt.step()
    print("step", i + 1, "allocated", torch.cuda.memory_allocated(), "reserved", torch.cuda.memory_reserved(),
          flush=True)
