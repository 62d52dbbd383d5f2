"""Real PyTorch on fakecuda, started without gpuleak, for `gpuleak attach`
(tests/t_attach_torch.sh).  At start it turns PyTorch's history recorder
on (Python stacks), makes a 1 MiB tensor (a 2 MiB segment of the caching
allocator), prints "ready", then answers one command a line on stdin with
"ok CMD":
  leak N      keeps a new tensor of N bytes
  block       says "ok block", then waits in C (a blocking read of stdin,
              no bytecode run) for the next line, and says "ok unblock"
  free-pre    drops the tensor made at start and empties the cache (the
              2 MiB segment, made before any attach, goes back to CUDA)
  history     prints "history True" or "history False": whether PyTorch's
              recorder is on
  own         turns PyTorch's recorder on with its own defaults (a trace of
              every event, stacks="all": C++ frames too), max_entries=1000
  trace       prints "trace N cxx B": the entries of PyTorch's trace, and
              whether any has a C++ frame (torch::unwind::unwind())
With NO_HISTORY=1 in its environment it leaves the recorder off at start.
  quit        prints torch's own totals and exits with status 4"""
import sys

import os
import torch

from stdin_lines import lines  # tests/programs/

if os.environ.get("NO_HISTORY") != "1":
    torch.cuda.memory._record_memory_history(enabled="state", context="alloc", stacks="python")
pre = torch.empty(1 << 20, device="cuda", dtype=torch.uint8)  # PRE-LINE
kept = []


def leak(n):
    kept.append(torch.empty(n, device="cuda", dtype=torch.uint8))  # LEAK-LINE


print("ready", flush=True)
for line in lines():
    cmd, _, arg = line.strip().partition(" ")
    if cmd == "leak":
        leak(int(arg))
    elif cmd == "block":
        print("ok block", flush=True)
        sys.stdin.buffer.raw.read(4096)  # the next line, "unblock"
        cmd = "unblock"
    elif cmd == "free-pre":
        del pre
        torch.cuda.empty_cache()
    elif cmd == "history":
        print("history", torch._C._cuda_isHistoryEnabled(), flush=True)
    elif cmd == "own":
        torch.cuda.memory._record_memory_history(max_entries=1000)
    elif cmd == "trace":
        trace = torch.cuda.memory._snapshot()["device_traces"][0]
        cxx = any(f["name"] == "torch::unwind::unwind()" for e in trace for f in e.get("frames", ()))
        print("trace", len(trace), "cxx", cxx, flush=True)
    elif cmd == "quit":
        break
    print("ok", cmd, flush=True)
print("allocated", torch.cuda.memory_allocated(), "reserved", torch.cuda.memory_reserved())
sys.exit(4)
