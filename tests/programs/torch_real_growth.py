"""A training loop with two planted leaks, for tests/t_torch_real_growth.sh
(issue 45, item 2): an nn.Linear MLP, AdamW, 5 steps, no snapshot call.
`python torch_real_growth.py leak` plants them; `clean` runs the same loop
without them.  Each step
 - makes a 32 MiB temporary and frees it before the step ends (it raises
   the peak, and must never be taken for a leak);
 - leak 1, `history.append(loss)`: each step's loss kept with its graph.
   backward() frees the graph's saved tensors; what stays is the block
   mse_loss made at the loss's line, 65,536 bytes (64 x 256 floats: on this
   build torch.cuda.memory_allocated() rises by that much at mse_loss);
 - leak 2, a global dict that keeps one activation a step: 64 x 512 floats,
   131,072 bytes a step, at the line that made it.
After each step it prints what torch holds: "step N allocated A"."""
import sys

import torch

leak = sys.argv[1] == "leak"
torch.backends.cudnn.enabled = False
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 256)).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
x = torch.randn(64, 256, device="cuda")
y = torch.randn(64, 256, device="cuda")
history = []
activations = {}

for step in range(5):
    tmp = torch.ones(8 * 1024 * 1024, device="cuda")  # TEMP-LINE: 32 MiB, freed within the step
    del tmp
    h = model[0](x)  # ACT-LINE: 131,072 bytes
    out = model[2](model[1](h))
    loss = torch.nn.functional.mse_loss(out, y)  # LOSS-LINE: 65,536 bytes
    opt.zero_grad()
    loss.backward()
    opt.step()
    if leak:
        history.append(loss)
        activations[step] = h
    print("step", step + 1, "allocated", torch.cuda.memory_allocated(), flush=True)
