"""Real PyTorch on fakecuda, started without gpuleak, for `gpuleak attach`
(tests/t_attach_torch.sh).  At start it makes a 1 MiB tensor (a 2 MiB
segment of the caching allocator), prints "ready", then answers one
command a line on stdin with "ok CMD":
  leak N      keeps a new tensor of N bytes
  free-pre    drops the tensor made at start and empties the cache (the
              2 MiB segment, made before any attach, goes back to CUDA)
  quit        prints torch's own totals and exits with status 4"""
import select
import sys

import torch

pre = torch.empty(1 << 20, device="cuda", dtype=torch.uint8)
kept = []


def leak(n):
    kept.append(torch.empty(n, device="cuda", dtype=torch.uint8))  # LEAK-LINE


def lines():
    """stdin's lines, waiting in Python (select with a timeout) rather than
    in a blocking read, so that the main thread runs bytecode and can answer
    gpuleak's request for PyTorch's view (docs/pytorch.md)."""
    buf = b""
    while True:
        if not select.select([sys.stdin], [], [], 0.05)[0]:
            continue
        chunk = sys.stdin.buffer.raw.read(4096)
        if not chunk:
            return
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            yield line.decode()


print("ready", flush=True)
for line in lines():
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
