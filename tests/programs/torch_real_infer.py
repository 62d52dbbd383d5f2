"""An inference server on real PyTorch with no optimizer, for
tests/t_torch_real_server_rate.sh (issue 45, item 8): an nn.Linear model in
eval mode answers 24 requests 0.05 s apart under torch.no_grad(), and keeps
each response (a 16 x 1024 float output, 64 KiB) in a global cache that is
never emptied: the memory that creeps up in a server, at one line.  No
snapshot call, no optimizer: only gpuleak's time windows
(GPULEAK_STEP_INTERVAL) see it.  It prints what torch holds after each
request."""
import time

import torch

model = torch.nn.Linear(256, 1024, device="cuda").eval()
cache = []

with torch.no_grad():
    for i in range(24):
        x = torch.ones(16, 256, device="cuda")  # the request: freed after it
        cache.append(model(x))  # CACHE-LINE: the response, kept for good
        print("request", i + 1, "allocated", torch.cuda.memory_allocated(), flush=True)
        time.sleep(0.05)
