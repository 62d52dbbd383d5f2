"""Real PyTorch recording its own memory history, for
tests/t_torch_real_user_history.sh: the program turns recording on with
settings of its own (a trace of every event, max_entries=1000), keeps one
1 MiB tensor per step, and dumps PyTorch's snapshot with _dump_snapshot();
then it asks gpuleak for one.  It prints how many trace entries its
settings allowed to pile up."""
import os
import sys

import torch

sys.path.insert(0, os.environ["GPULEAK_PYTHON_DIR"])
import gpuleak_memory as gm  # noqa: E402

torch.cuda.memory._record_memory_history(enabled="all", context="all", stacks="python", max_entries=1000)
kept = []
for i in range(3):
    t = torch.ones(64 * 1024, device="cuda")  # TEMP-LINE: 256 KiB, freed
    kept.append(torch.empty(256 * 1024, device="cuda"))  # PLANTED-LINE: 1 MiB per step
    del t
torch.cuda.memory._dump_snapshot("user.pickle")
assert gm._dump_snapshot("gpuleak.snap") == "gpuleak.snap"
print("allocated", torch.cuda.memory_allocated(), "reserved", torch.cuda.memory_reserved())
