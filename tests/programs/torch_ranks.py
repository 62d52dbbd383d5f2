"""One rank of a real-PyTorch job started by torchrun, for
tests/t_cluster_torchrun.sh: `torch_ranks.py LEAKY`.  No process group
(NCCL cannot run on fakecuda): each rank works on cuda:LOCAL_RANK, as a DDP
rank does, with the elementwise autograd + SGD loop of torch_real_train.py.
Rank LEAKY also keeps one 1 MiB tensor per step (the planted line).  At
the end each rank asks gpuleak for a snapshot (named by GPULEAK_OUTPUT, so
by rank with %r) and prints what torch says it holds at that moment."""
import os
import sys

import torch

sys.path.insert(0, os.environ["GPULEAK_PYTHON_DIR"])
import gpuleak_memory as gm  # noqa: E402

rank, local = int(os.environ["RANK"]), int(os.environ["LOCAL_RANK"])
leaky = int(sys.argv[1])
torch.cuda.set_device(local)
w = torch.zeros(64 * 1024, device="cuda", requires_grad=True)  # 256 KiB
opt = torch.optim.SGD([w], lr=0.01, momentum=0.9)
kept = []

for i in range(4):
    x = torch.ones(64 * 1024, device="cuda")
    loss = ((x * w - 1.0) ** 2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if rank == leaky:
        kept.append(torch.empty(256 * 1024, device="cuda"))  # PLANTED-LINE: 1 MiB per step
torch.cuda.synchronize()
snap = gm._dump_snapshot()
print("rank", rank, "device", torch.cuda.current_device(), "allocated", torch.cuda.memory_allocated(),
      "reserved", torch.cuda.memory_reserved(), "snapshot", snap, flush=True)
