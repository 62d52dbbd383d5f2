"""Python workload for `make bench` (scripts/bench.sh): N cudaMalloc/cudaFree
pairs through ctypes from a Python stack DEPTH frames deep (default 20).
Prints "RESULT ns_per_pair=X", timing only the loop, like bench_work.
  python3 bench_py.py LIBCUDART N [DEPTH]"""
import ctypes
import sys
import time

from pydepth import at_depth

lib = ctypes.CDLL(sys.argv[1])
N = int(sys.argv[2])
DEPTH = int(sys.argv[3]) if len(sys.argv) > 3 else 20
malloc, free = lib.cudaMalloc, lib.cudaFree
size = ctypes.c_size_t(4096)


def loop(n):
    p = ctypes.c_void_p()
    ref = ctypes.byref(p)
    for _ in range(n):
        malloc(ref, size)
        free(p)


def timed(n):
    loop(1000)  # warm-up: activation, interning
    t0 = time.perf_counter_ns()
    loop(n)
    return (time.perf_counter_ns() - t0) / n


# timed() and loop() below DEPTH - 2 frames: DEPTH in all, plus the module
print("RESULT ns_per_pair=%.1f" % at_depth(DEPTH - 2, timed, N), flush=True)
