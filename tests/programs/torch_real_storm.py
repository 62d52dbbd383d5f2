"""Real PyTorch under stress, for tests/t_torch_real_storm.sh: 4 threads
allocate and free tensors while the main thread sends itself SIGUSR1 10
times (each a snapshot that asks PyTorch through a pending call) and
GPULEAK_INTERVAL takes periodic ones; the last signal comes just before
exit, so the program ends with that pending call queued.  It prints
whether PyTorch's history recording is on at the end.

Each storm signal waits for its snapshot file before the next is sent:
gpuleak merges a signal that comes while an earlier one still waits for
the writer (a periodic snapshot asking PyTorch, on a loaded machine) into
that one, as the kernel merges a standard signal, and the test counts one
snapshot per signal."""
import glob
import os
import struct
import signal
import threading
import time

import torch

stop = threading.Event()


def churn():
    kept = []
    while not stop.is_set():
        kept.append(torch.empty(64 * 1024, device="cuda"))  # THREAD-LINE
        if len(kept) > 8:
            kept.clear()


x = torch.ones(1024, device="cuda")
threads = [threading.Thread(target=churn) for _ in range(4)]
for t in threads:
    t.start()


def signal_snapshots():
    """Snapshots in the working directory taken for a signal: the PROCESS
    record comes first, its u32 reason (1: signal) at byte 44 (16-byte file
    header, 16-byte record header, pid, ppid, rank)."""
    n = 0
    for name in glob.glob("*.snap"):
        with open(name, "rb") as f:
            head = f.read(48)
        n += len(head) == 48 and struct.unpack_from("<I", head, 44)[0] == 1
    return n


for i in range(10):
    os.kill(os.getpid(), signal.SIGUSR1)
    deadline = time.monotonic() + 20
    while signal_snapshots() <= i and time.monotonic() < deadline:
        time.sleep(0.01)  # bytecode: the snapshot's pending call runs here
stop.set()
for t in threads:
    t.join()
print("history", torch._C._cuda_isHistoryEnabled())
os.kill(os.getpid(), signal.SIGUSR1)
