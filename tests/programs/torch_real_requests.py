"""Real PyTorch on fakecuda, started without gpuleak, for
tests/t_attach_torch_diff.sh (issue 48, item 14): a request loop that keeps
every 10th result, as a server's cache of responses would.  It turns
PyTorch's history recorder on at start (Python stacks), so that every
tensor has its line, the ones kept before the attach too.  It prints
"ready", then answers one command a line on stdin with "ok CMD":
  serve N   serves N requests: each makes a 128 KiB result, and every 10th
            is kept (a copy of it) in a list that is never emptied
  block     says "ok block", then waits in C (a blocking read of stdin, no
            bytecode run) for the next line, and says "ok unblock"
  quit      exits with status 0"""
import sys

import torch

from stdin_lines import lines  # tests/programs/

torch.cuda.memory._record_memory_history(enabled="state", context="alloc", stacks="python")
cache = []


def serve(n):
    for i in range(n):
        y = torch.empty(32768, device="cuda")  # REQUEST-LINE: 128 KiB, freed
        if i % 10 == 9:
            cache.append(y.detach() * 1.0)  # KEEP-LINE: kept for good


print("ready", flush=True)
for line in lines():
    cmd, _, arg = line.strip().partition(" ")
    if cmd == "serve":
        serve(int(arg))  # SERVE-CALL
        torch.cuda.synchronize()
    elif cmd == "block":
        print("ok block", flush=True)
        sys.stdin.buffer.raw.read(4096)  # the next line, "unblock"
        cmd = "unblock"
    elif cmd == "quit":
        break
    print("ok", cmd, flush=True)
sys.exit(0)
