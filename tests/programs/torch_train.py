"""A training loop on the stand-in torch (tests/programs/torch_standin) with
a planted leak: each step's loss is appended to a list, and with it, through
its graph, the step's activations.  Snapshots after each step, taken as
argv[1] says:
  request  gpuleak_memory._dump_snapshot("stepN.snap") from this thread
  signal   SIGUSR1 to the process (the writer thread asks Python's main
           thread), waiting for GPULEAK_OUTPUT's file to appear
  blocked  one SIGUSR1 while the main thread sleeps in C for longer than
           gpuleak waits for it, then waits for the follow-up snapshot
  crash    as `signal`, then dies of SIGSEGV
  user     as `signal`, after the program turned history recording on itself
Prints what torch says it holds after each step."""
import os
import signal
import sys
import time

import torch

sys.path.insert(0, os.environ["GPULEAK_PYTHON_DIR"])
import gpuleak_memory as gm  # noqa: E402

mode = sys.argv[1]
if mode == "user":
    torch.cuda.memory._record_memory_history(enabled="all", max_entries=100)

weights = torch.empty(256 * 1024)  # WEIGHTS-LINE: 1 MiB, kept on purpose
losses = []


def forward(x):
    h = x * weights  # ACT-LINE: 256 KiB per step, kept through the loss's graph
    return h.sum()   # LOSS-LINE: 4 bytes (a 512-byte block) per step


def step():
    x = torch.empty(64 * 1024)  # INPUT-LINE: 256 KiB per step, kept too
    loss = forward(x)
    losses.append(loss)  # the planted leak: the loss keeps its graph
    scratch = torch.empty(128 * 1024)  # SCRATCH-LINE: freed at once, cached
    del scratch


def wait_for(path):
    for _ in range(1000):
        if os.path.exists(path):
            return
        time.sleep(0.01)  # the main thread runs bytecode between sleeps
    sys.exit("no snapshot " + path)


if mode == "blocked":
    step()
    os.kill(os.getpid(), signal.SIGUSR1)
    time.sleep(3)  # in C, longer than gpuleak waits (2 s): no answer
    wait_for(os.environ["GPULEAK_OUTPUT"].replace("%n", "0"))
    wait_for(os.environ["GPULEAK_OUTPUT"].replace("%n", "1"))  # the follow-up, once back in bytecode
    sys.exit(0)

for i in range(4):
    step()
    if mode == "request":
        assert gm._dump_snapshot("step%d.snap" % i) == "step%d.snap" % i
    else:
        os.kill(os.getpid(), signal.SIGUSR1)
        wait_for(os.environ["GPULEAK_OUTPUT"].replace("%n", str(i)))
    print("step", i, "allocated", torch.cuda.memory_allocated(), "reserved", torch.cuda.memory_reserved())
rec = [c for c in torch.cuda.memory.calls if c[0] == "_record_memory_history"]
print("calls", [c[0] for c in rec], [c[1:] for c in rec])
if mode == "crash":
    sys.stdout.flush()
    time.sleep(0.5)  # the last view is >= 0.5 s old at the crash
    os.kill(os.getpid(), signal.SIGSEGV)
print("asked", sorted(set((c[0], sum(1 for x in torch.cuda.memory.calls if x[0] == c[0]))
                          for c in torch.cuda.memory.calls if c[0] != "_record_memory_history")))
