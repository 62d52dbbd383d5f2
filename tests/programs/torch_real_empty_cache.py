"""Real PyTorch's torch.cuda.empty_cache(), for
tests/t_torch_real_empty_cache.sh: a kept 256 KiB tensor (in a 2 MiB
segment) and two freed 12 MiB ones (a segment each); a snapshot before
empty_cache() and one after, each with what
torch says it holds at that moment."""
import os
import sys

import torch

sys.path.insert(0, os.environ["GPULEAK_PYTHON_DIR"])
import gpuleak_memory as gm  # noqa: E402

kept = torch.empty(64 * 1024, device="cuda")  # KEPT-LINE: 256 KiB, in a 2 MiB segment
a = torch.empty(3 * 1024 * 1024, device="cuda")  # FREED-LINE: 12 MiB, its own segment
b = torch.empty(3 * 1024 * 1024, device="cuda")  # FREED-LINE: 12 MiB, its own segment
del a, b
for when in ("before", "after"):
    if when == "after":
        torch.cuda.empty_cache()
    assert gm._dump_snapshot(when + ".snap") == when + ".snap"
    print(when, "allocated", torch.cuda.memory_allocated(), "reserved", torch.cuda.memory_reserved())
