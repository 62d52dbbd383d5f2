"""make bench, section 4: the snapshots a PyTorch user diffs (issue 45,
item 9).  A 5-step AdamW loop on real torch (fakecuda: elementwise ops and
layer norm, no cuBLAS) with the issue's two leaks -- a validation loss kept
with its graph (history.append) and one activation per step kept in a
global dict -- and one large temporary, PyTorch's recorder on with its
default stacks="all", and a snapshot after each step (step0..4.snap in the
current directory), as a user asks for them."""
import torch

import gpuleak_memory as gm

torch.manual_seed(0)
torch.cuda.memory._record_memory_history()
w1 = torch.nn.Parameter(torch.randn(128, 256, device="cuda"))
w2 = torch.nn.Parameter(torch.randn(128, 256, device="cuda"))
ln = torch.nn.LayerNorm(256).cuda()
opt = torch.optim.AdamW([w1, w2] + list(ln.parameters()), lr=1e-3)
history = []
cache = {}


def forward(x):
    h = ln(x * w1)
    return h, (torch.relu(h) * w2).softmax(-1)


for step in range(5):
    h, out = forward(torch.randn(128, 256, device="cuda"))
    cache[step] = h.detach()  # leak: one activation per step
    loss = out.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    tmp = torch.empty(8 * 1024 * 1024, device="cuda")  # a 32 MiB temporary
    del tmp
    vloss = forward(torch.randn(128, 256, device="cuda"))[1].pow(2).mean()
    history.append(vloss)  # leak: keeps the validation graph
    gm._dump_snapshot("step%d.snap" % step)
