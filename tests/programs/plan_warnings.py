"""A script gpuleak plan warns about (tests/t_plan_composition.sh): it
reads a device value (.item()), makes a second CUDA stream and calls
torch.compile; each on a line of its own, one optimizer step each loop."""
import torch

model = torch.nn.Linear(64, 64).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
side = torch.cuda.Stream()
try:
    double = torch.compile(lambda t: t * 2)
except Exception:  # compiling may be refused without a GPU; the warning came first
    double = None
while True:
    loss = model(torch.ones(8, 64, device="cuda")).square().mean()
    if loss.item() > 1e9:
        break
    loss.backward()
    opt.step()
