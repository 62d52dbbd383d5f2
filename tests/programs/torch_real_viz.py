"""Real PyTorch for tests/t_torch_real_viz.sh: a kept tensor per step made
in a function, a freed temporary, and a tensor kept from an nn.Module's
forward (PyTorch's own frames in its stack), then PyTorch's own
_dump_snapshot() and gpuleak's snapshot of the same moment (nothing
allocates between them)."""
import os
import sys

import torch

sys.path.insert(0, os.environ["GPULEAK_PYTHON_DIR"])
import gpuleak_memory as gm  # noqa: E402


class Twice(torch.nn.Module):
    def forward(self, x):
        return torch.nn.functional.relu(x * 2)  # MODULE-LINE: 64 KiB, kept


def make():
    return torch.empty(256 * 1024, device="cuda")  # PLANTED-LINE: 1 MiB per step


w = torch.zeros(64 * 1024, device="cuda")  # FIRST-LINE: 256 KiB
net = torch.nn.Sequential(Twice())
kept = []
for i in range(3):
    t = torch.ones(3 * 1024 * 1024, device="cuda")  # TEMP-LINE: 12 MiB, freed
    kept.append(make())  # CALL-LINE
    del t
kept.append(net(torch.ones(64, 256, device="cuda")))  # NET-LINE: its input and x * 2 freed
torch.cuda.synchronize()
torch.cuda.memory._dump_snapshot("torch.pickle")
assert gm._dump_snapshot("gpuleak.snap") == "gpuleak.snap"
