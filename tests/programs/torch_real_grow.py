"""Real PyTorch for tests/t_torch_real_diff_lead.sh (issue 35): a loop that
keeps one 4 MiB tensor per step and makes a 24 MiB temporary.  The kept
tensors are carved out of the temporaries' cached segments, so every sixth
step the temporary finds no room and PyTorch's cache grows by a cudaMalloc
from the temporary's line: gpuleak's allocations grow at the temporary's
line, the tensors at the kept one's.  Snapshots after steps 0, 6 and 12."""
import os
import sys

import torch

sys.path.insert(0, os.environ["GPULEAK_PYTHON_DIR"])
import gpuleak_memory as gm  # noqa: E402

w = torch.zeros(64 * 1024, device="cuda")  # FIRST-LINE: 256 KiB, before the loop
kept = []
for i in range(13):
    kept.append(torch.empty(1024 * 1024, device="cuda"))  # KEPT-LINE: 4 MiB per step
    t = torch.ones(6 * 1024 * 1024, device="cuda")  # TEMP-LINE: 24 MiB, freed
    del t
    if i % 6 == 0:
        torch.cuda.synchronize()
        assert gm._dump_snapshot("step%d.snap" % i) == "step%d.snap" % i
        print("step", i, "allocated", torch.cuda.memory_allocated(), "reserved", torch.cuda.memory_reserved())
