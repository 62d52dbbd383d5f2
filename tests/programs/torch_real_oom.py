"""Real PyTorch running out of memory, for tests/t_torch_real_oom.sh
(fakecuda-run --mem 64 MiB): it keeps 12 MiB tensors until PyTorch raises
torch.OutOfMemoryError, then prints how many it kept and what torch holds."""
import torch

kept = []
try:
    for i in range(100):
        kept.append(torch.empty(3 * 1024 * 1024, device="cuda"))  # KEPT-LINE: 12 MiB each
except torch.OutOfMemoryError:
    print("oom kept", len(kept), "allocated", torch.cuda.memory_allocated(), "reserved", torch.cuda.memory_reserved())
