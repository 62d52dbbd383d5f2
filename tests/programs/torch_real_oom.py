"""Real PyTorch running out of memory, for tests/t_torch_real_oom.sh
(fakecuda-run --mem 64 MiB): it keeps 12 MiB tensors until PyTorch raises
torch.OutOfMemoryError, then prints how many it kept and what torch holds.
With an argument K, it sends itself SIGUSR1 once K tensors are kept and
waits for that snapshot (PyTorch's view, answered on this thread), so the
out-of-memory snapshot has a last view to carry."""
import glob
import os
import signal
import sys
import time

import torch

view_at = int(sys.argv[1]) if len(sys.argv) > 1 else -1
kept = []
try:
    for i in range(100):
        if i == view_at:
            os.kill(os.getpid(), signal.SIGUSR1)
            deadline = time.monotonic() + 20
            while not glob.glob("*.snap") and time.monotonic() < deadline:
                time.sleep(0.01)  # bytecode: the snapshot's pending call runs here
        kept.append(torch.empty(3 * 1024 * 1024, device="cuda"))  # KEPT-LINE: 12 MiB each
except torch.OutOfMemoryError:
    print("oom kept", len(kept), "allocated", torch.cuda.memory_allocated(), "reserved", torch.cuda.memory_reserved())
