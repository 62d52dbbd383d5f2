"""Real PyTorch running out of memory in four ways, for
tests/t_torch_real_oom_kinds.sh (fakecuda-run --mem 64 MiB; the context
takes 4 MiB).  The argument names the way:

exceeded       12 MiB tensors kept until PyTorch raises: 5 fit, the 6th
               does not (the process holds 60 of 64 MiB).
fragmentation  nine 6 MiB tensors fill three 20 MiB segments; two of each
               three are dropped, leaving 42 MiB free in PyTorch's cache in
               blocks of 6 and 8 MiB, then a 12 MiB tensor: no block is as
               large, and no room for a new segment.
elsewhere      another process holds 40 MiB (FAKECUDA_OTHER_USED): one
               12 MiB tensor fits, the second does not.
setting        torch.cuda.set_per_process_memory_fraction(0.25) allows
               16 MiB: one 12 MiB tensor, the second is refused by PyTorch
               itself while the device has 48 MiB free.

After the error it prints what torch says of itself then: allocated,
reserved, their maxima, and from its own _snapshot() the largest free
(inactive) block and how many there are."""
import sys

import torch

MiB = 1 << 20
way = sys.argv[1]
kept = []
torch.cuda.init()
if way == "setting":
    torch.cuda.set_per_process_memory_fraction(0.25)
try:
    if way == "fragmentation":
        blocks = [torch.empty(6 * MiB, dtype=torch.uint8, device="cuda") for _ in range(9)]  # FILL-LINE
        kept = blocks[1::3]
        del blocks
        kept.append(torch.empty(12 * MiB, dtype=torch.uint8, device="cuda"))  # ASK-LINE
    else:
        for i in range(100):
            kept.append(torch.empty(12 * MiB, dtype=torch.uint8, device="cuda"))  # KEPT-LINE
except torch.OutOfMemoryError:
    free = [b["size"] for g in torch.cuda.memory._snapshot()["segments"] for b in g["blocks"] if b["state"] == "inactive"]
    print("oom", len(kept), torch.cuda.memory_allocated(), torch.cuda.memory_reserved(),
          torch.cuda.max_memory_allocated(), torch.cuda.max_memory_reserved(), max(free, default=0), len(free))
