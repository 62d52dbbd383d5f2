"""numba.cuda started without gpuleak, for `gpuleak attach`
(tests/t_attach_numba.sh).  numba calls the driver through ctypes function
objects, looked up with dlsym at each function's first use and kept in heap
memory.  At start it makes a device array (cuMemAlloc_v2 looked up then:
before the attach), prints "ready", then answers a command a line with
"ok CMD":
  dev       a device array of 10000 bytes (the lookup made before the attach)
  pinned    a pinned array of 20000 bytes (cuMemHostAlloc's first use)
  quit      exits with status 6"""
import sys

import numpy as np
from numba import cuda

import numba_cuda13  # noqa: F401  (CUDA 13 ABIs numba 0.56 predates)

keep = [cuda.device_array(1000, dtype=np.uint8)]


def dev():
    keep.append(cuda.device_array(10000, dtype=np.uint8))  # LEAK-LINE: device


def pinned():
    keep.append(cuda.pinned_array(20000, dtype=np.uint8))  # LEAK-LINE: pinned


print("ready", flush=True)
for line in sys.stdin:
    c = line.strip()
    if c == "dev":
        dev()
    elif c == "pinned":
        pinned()
    elif c == "quit":
        break
    print("ok", c, flush=True)
sys.exit(6)
