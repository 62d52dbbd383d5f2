"""A server-like loop on real PyTorch with no optimizer, for
tests/t_torch_real_steps.sh: 20 requests 0.1 s apart, each keeping a
64 KiB tensor in a global cache (the creeping leak of a server), and no
snapshot call.  It prints what torch holds after each request, the
figures a time window's view (GPULEAK_STEP_INTERVAL) can see."""
import time

import torch

cache = []
print("request 0 allocated", torch.cuda.memory_allocated(), flush=True)
for i in range(20):
    cache.append(torch.empty(16 * 1024, device="cuda"))  # CACHE-LINE: 64 KiB a request
    print("request", i + 1, "allocated", torch.cuda.memory_allocated(), flush=True)
    time.sleep(0.1)
