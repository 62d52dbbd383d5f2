"""Real PyTorch under stress, for tests/t_torch_real_storm.sh: 4 threads
allocate and free tensors while the main thread sends itself SIGUSR1 10
times (each a snapshot that asks PyTorch through a pending call) and
GPULEAK_INTERVAL takes periodic ones; the last signal comes just before
exit, so the program ends with that pending call queued.  It prints
whether PyTorch's history recording is on at the end."""
import os
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
for i in range(10):
    os.kill(os.getpid(), signal.SIGUSR1)
    time.sleep(0.05)
stop.set()
for t in threads:
    t.join()
print("history", torch._C._cuda_isHistoryEnabled())
os.kill(os.getpid(), signal.SIGUSR1)
