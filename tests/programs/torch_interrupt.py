"""One tensor on the stand-in torch (tests/programs/torch_standin), then one
snapshot with PyTorch's view, asked as argv[1] says:
  pending  SIGUSR1 to the process: gpuleak's writer thread asks Python's main
           thread (a pending call), which waits in 10 ms sleeps
  request  gpuleak_memory._dump_snapshot("req0.snap") on the main thread
  thread   the same from a second thread, the main thread joining it
argv[2] "catch": the program catches what the query raised (KeyboardInterrupt,
SystemExit, or the stand-in's async_exc), says so, and takes a second
snapshot (sig1.snap, req1.snap) that must be answered.  SIGTERM's handler
exits with 143, as schedulers' jobs commonly do.  The stand-in's _snapshot
interrupts or delays itself as TORCH_STANDIN_SNAPSHOT_* say."""
import os
import signal
import sys
import threading
import time

import torch

sys.path.insert(0, os.environ["GPULEAK_PYTHON_DIR"])
import gpuleak_memory as gm  # noqa: E402


class Stop(BaseException):
    """What a timeout library raises in a thread it stops."""


torch.cuda.memory.async_exc = Stop
signal.signal(signal.SIGTERM, lambda *a: sys.exit(143))
how, catch = sys.argv[1], sys.argv[2:] == ["catch"]
x = torch.empty(64 * 1024)  # 256 KiB, in one 2 MiB segment


def boundary():
    """A Python call: a bytecode boundary, where Python raises what a signal
    handler (or a pending call) left, as after any C call."""


def wait_for(path):
    for _ in range(1000):
        if os.path.exists(path):
            return
        time.sleep(0.01)  # the main thread runs bytecode between sleeps
    sys.exit("no snapshot " + path)


def snapshot(n):
    t0 = time.monotonic()
    if how == "pending":
        os.kill(os.getpid(), signal.SIGUSR1)
        wait_for("sig%d.snap" % n)
    else:
        assert gm._dump_snapshot("req%d.snap" % n) == "req%d.snap" % n
        boundary()
    print("snapshot %d in %.1f s" % (n, time.monotonic() - t0), file=sys.stderr)


def guarded(n):
    try:
        snapshot(n)
    except (KeyboardInterrupt, SystemExit, Stop) as e:
        if not catch:
            raise
        print("caught", type(e).__name__, e.code if isinstance(e, SystemExit) else "")
        if how == "pending":
            wait_for("sig%d.snap" % n)  # the writer still writes the first
        snapshot(n + 1)


if how == "thread":
    t = threading.Thread(target=guarded, args=(0,))
    t.start()
    t.join()
else:
    guarded(0)
print("ran on")
