"""Two Linear(256, 256) layers trained with AdamW, for gpuleak plan's
composition (tests/t_plan_composition.sh): python plan_mlp.py BATCH.
fp32: each layer's parameters are 256 x 256 x 4 + 256 x 4 = 263,168
bytes; its gradients as many; AdamW's state two tensors as large (its
`step` counters stay on the CPU).  Trains until plan ends it."""
import sys

import torch

batch = int(sys.argv[1])
model = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256)).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
x = torch.randn(batch, 256, device="cuda")
while True:
    y = model(x)
    loss = y.square().mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
