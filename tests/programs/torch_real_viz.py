"""Real PyTorch for tests/t_torch_real_viz.sh: a kept tensor per step and a
freed temporary, then PyTorch's own _dump_snapshot() and gpuleak's
snapshot of the same moment (nothing allocates between them)."""
import os
import sys

import torch

sys.path.insert(0, os.environ["GPULEAK_PYTHON_DIR"])
import gpuleak_memory as gm  # noqa: E402

w = torch.zeros(64 * 1024, device="cuda")  # FIRST-LINE: 256 KiB
kept = []
for i in range(3):
    t = torch.ones(3 * 1024 * 1024, device="cuda")  # TEMP-LINE: 12 MiB, freed
    kept.append(torch.empty(256 * 1024, device="cuda"))  # PLANTED-LINE: 1 MiB per step
    del t
torch.cuda.synchronize()
torch.cuda.memory._dump_snapshot("torch.pickle")
assert gm._dump_snapshot("gpuleak.snap") == "gpuleak.snap"
