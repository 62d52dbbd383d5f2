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
user pays.

The speed of the Python work differs by tens of percent from one process to
the next on a shared machine, far more than the allocations cost, so two
processes' step times cannot be compared.  Each process therefore also runs
the same steps with every allocation and free replaced by a ctypes call that
does nothing (cudaGetDevice), in alternating chunks, and prints what the
allocation calls themselves cost per step:
  "RESULT ns_per_step=X ns_alloc_per_step=Y ns_per_op_work=Z"
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
stream = ctypes.c_void_p(0)
_dev = ctypes.c_int()
_get_device = lib.cudaGetDevice


def no_malloc(ref, size, stream):  # same Python shape, one cheap ctypes call
    return _get_device(ctypes.byref(_dev))


def no_free(ptr, stream):
    return _get_device(ctypes.byref(_dev))


REAL = (lib.cudaMallocAsync, lib.cudaFreeAsync)
NONE = (no_malloc, no_free)
# activation sizes vary by layer, as a network's do (64 KiB .. 4 MiB)
sizes = [ctypes.c_size_t((64 << 10) << (i % 7)) for i in range(LAYERS)]


def op_work():
    acc = 0
    for i in range(OP_WORK):
        acc += i
    return acc


def step(acts, grads, calls):
    malloc, free = calls
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


def steps(n, calls):
    acts = [ctypes.c_void_p() for _ in range(LAYERS)]
    grads = [ctypes.c_void_p() for _ in range(LAYERS)]
    for _ in range(n):
        step(acts, grads, calls)


def timed(n):
    steps(20, REAL)  # warm-up: activation, interning
    steps(20, NONE)
    chunk = 10
    real = none = 0
    for _ in range(max(1, n // chunk)):  # alternating, so drift hits both
        t0 = time.perf_counter_ns()
        steps(chunk, REAL)
        t1 = time.perf_counter_ns()
        steps(chunk, NONE)
        real += t1 - t0
        none += time.perf_counter_ns() - t1
    done = max(1, n // chunk) * chunk
    t0 = time.perf_counter_ns()
    for _ in range(done * LAYERS):
        op_work()
    work = (time.perf_counter_ns() - t0) / (done * LAYERS)
    return real / done, (real - none) / done, work


# timed(), steps() and step() below DEPTH - 3 frames: DEPTH in all
step_ns, alloc_ns, work_ns = at_depth(DEPTH - 3, timed, STEPS)
print("RESULT ns_per_step=%.1f ns_alloc_per_step=%.1f ns_per_op_work=%.1f" % (step_ns, alloc_ns, work_ns), flush=True)
