"""Real PyTorch with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, for
tests/t_torch_real_expandable.sh: the caching allocator grows one
reserved range by cuMemCreate + cuMemMap (20 MiB pages), reached through
the runtime's cudaGetDriverEntryPointByVersion.  A planted list keeps one
20 MiB tensor per step; a 12 MiB temporary is freed each step.  It asks
gpuleak for a snapshot and prints what torch says at that moment."""
import os
import sys

import torch

sys.path.insert(0, os.environ["GPULEAK_PYTHON_DIR"])
import gpuleak_memory as gm  # noqa: E402

kept = []
for i in range(3):
    x = torch.ones(3 * 1024 * 1024, device="cuda")  # TEMP-LINE: 12 MiB
    kept.append(torch.empty(5 * 1024 * 1024, device="cuda"))  # PLANTED-LINE: 20 MiB per step
    del x
torch.cuda.synchronize()
assert gm._dump_snapshot("expandable.snap") == "expandable.snap"
print("allocated", torch.cuda.memory_allocated(), "reserved", torch.cuda.memory_reserved())
