"""A small Linear model trained with AdamW, for gpuleak plan
(tests/t_plan.sh): python plan_linear.py BATCH STEPS.  STEPS 0 trains until
something stops it.  Prints "step N" after each step and, at the end,
"peaks ALLOCATED RESERVED": PyTorch's own max_memory_allocated and
max_memory_reserved."""
import sys

import torch

batch, steps = int(sys.argv[1]), int(sys.argv[2])
model = torch.nn.Sequential(torch.nn.Linear(512, 2048), torch.nn.GELU(), torch.nn.Linear(2048, 512)).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
x = torch.randn(batch, 256, 512, device="cuda")
step = 0
while steps == 0 or step < steps:
    loss = model(x).square().mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    step += 1
    print("step", step, flush=True)
print("peaks", torch.cuda.max_memory_allocated(), torch.cuda.max_memory_reserved(), flush=True)
