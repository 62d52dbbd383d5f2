"""PyTorch-like training step for `make bench` (scripts/bench.sh, issue 21):
what a user pays per step, not per call.

A step of a model with LAYERS layers, as PyTorch's cudaMallocAsync backend
drives CUDA (every tensor is a cudaMallocAsync/cudaFreeAsync call):
  forward    LAYERS ops, each allocates its activation
  backward   LAYERS ops, each allocates its gradient and frees its activation
  optimizer  LAYERS ops, each frees a gradient
so 2 x LAYERS allocations per step (50 by default), from a Python stack DEPTH
frames deep (default 20), through ctypes.  Each op also does OP_WORK
iterations of Python work, a stand-in for the op's dispatch on the CPU
(PyTorch's eager ops cost a few microseconds each there); the GPU's own time
is not modelled, so the percentage is for a step bound by the CPU: the most a
user pays.  Prints "RESULT ns_per_step=X ns_per_op_work=Y", timing only the
steps.
  python3 bench_step.py LIBCUDART STEPS [DEPTH [LAYERS [OP_WORK]]]"""
import ctypes
import sys
import time

from pydepth import at_depth

lib = ctypes.CDLL(sys.argv[1])
STEPS = int(sys.argv[2])
DEPTH = int(sys.argv[3]) if len(sys.argv) > 3 else 20
LAYERS = int(sys.argv[4]) if len(sys.argv) > 4 else 25
OP_WORK = int(sys.argv[5]) if len(sys.argv) > 5 else 300
malloc, free = lib.cudaMallocAsync, lib.cudaFreeAsync
stream = ctypes.c_void_p(0)
# activation sizes vary by layer, as a network's do (64 KiB .. 4 MiB)
sizes = [ctypes.c_size_t((64 << 10) << (i % 7)) for i in range(LAYERS)]


def op_work():
    acc = 0
    for i in range(OP_WORK):
        acc += i
    return acc


def step(acts, grads):
    for i in range(LAYERS):  # forward
        op_work()
        malloc(ctypes.byref(acts[i]), sizes[i], stream)
    for i in reversed(range(LAYERS)):  # backward
        op_work()
        malloc(ctypes.byref(grads[i]), sizes[i], stream)
        free(acts[i], stream)
    for i in range(LAYERS):  # optimizer
        op_work()
        free(grads[i], stream)


def steps(n):
    acts = [ctypes.c_void_p() for _ in range(LAYERS)]
    grads = [ctypes.c_void_p() for _ in range(LAYERS)]
    for _ in range(n):
        step(acts, grads)


def timed(n):
    steps(20)  # warm-up: activation, interning
    t0 = time.perf_counter_ns()
    steps(n)
    per_step = (time.perf_counter_ns() - t0) / n
    t0 = time.perf_counter_ns()
    for _ in range(n * LAYERS):
        op_work()
    return per_step, (time.perf_counter_ns() - t0) / (n * LAYERS)


# timed(), steps() and step() below DEPTH - 3 frames: DEPTH in all
step_ns, work_ns = at_depth(DEPTH - 3, timed, STEPS)
print("RESULT ns_per_step=%.1f ns_per_op_work=%.1f" % (step_ns, work_ns), flush=True)
