"""Real PyTorch on fakecuda, started without gpuleak, for `gpuleak attach`
(tests/t_attach_torch.sh).  At start it makes a 1 MiB tensor (a 2 MiB
segment of the caching allocator), prints "ready", then answers one
command a line on stdin with "ok CMD":
  leak N      keeps a new tensor of N bytes
  free-pre    drops the tensor made at start and empties the cache (the
              2 MiB segment, made before any attach, goes back to CUDA)
  quit        prints torch's own totals and exits with status 4"""
import sys

import torch

pre = torch.empty(1 << 20, device="cuda", dtype=torch.uint8)
kept = []


def leak(n):
    kept.append(torch.empty(n, device="cuda", dtype=torch.uint8))  # LEAK-LINE


print("ready", flush=True)
for line in sys.stdin:
    cmd, _, arg = line.strip().partition(" ")
    if cmd == "leak":
        leak(int(arg))
    elif cmd == "free-pre":
        del pre
        torch.cuda.empty_cache()
    elif cmd == "quit":
        break
    print("ok", cmd, flush=True)
print("allocated", torch.cuda.memory_allocated(), "reserved", torch.cuda.memory_reserved())
sys.exit(4)
