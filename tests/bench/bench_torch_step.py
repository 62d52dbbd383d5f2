"""One eager training step on real PyTorch, for `make bench`'s section 7
(scripts/bench-torch.sh, issue 36): what a PyTorch user pays per step.

The model is elementwise (no matmul, which fakecuda does not compute
anyway): LAYERS layers of y = tanh(x * w + b), a squared-error loss,
autograd, and Adam, so a step makes a few hundred tensors, each through
PyTorch's caching allocator (or cudaMallocAsync with that backend).  The
forward pass runs from a Python stack DEPTH frames deep, as a model's
modules nest.  On fakecuda the kernels are no-ops: a step is pure CPU
dispatch, the worst case for relative overhead.

  python bench_torch_step.py STEPS [WARMUP [LAYERS [DEPTH [NUMEL]]]]

WARMUP is 70 by default: past the 64 first steps, which gpuleak's step
hook always views (interpose/control/torch_step_pace.h), so that the timed
steps are those of a long run.
BENCH_TORCH_RECORD=1 turns on PyTorch's own recorder
(_record_memory_history(stacks="python")) first, as a user would.
Prints "RESULT us_per_step=X tensors_per_step=Y cpu_us_per_step=Z": wall
clock, and the CPU time of the whole process (every thread) per step, which
a loaded machine disturbs far less than the wall clock.

BENCH_TORCH_CALLGRIND=LIB (the process under callgrind with
--instr-atstart=no; LIB is build/bench/callgrind_window.so): callgrind counts
the timed steps only, not the import or the warm-up
(scripts/bench-torch-instr.sh).

BENCH_TORCH_SAMPLED=K (run under gpuleak with GPULEAK_STEP_LINES_EVERY=K)
also times each step and prices gpuleak's sampled lines within this one
process, so that the machine's drift falls on both sides: "SAMPLED k=K
base_us=B sampled_us=S turn_on_us=T period_pct=P", the medians of the
steps that are neither sampled nor before one (B), of the sampled steps
(PyTorch's recorder on, `_snapshot()` walked at the end: S) and of the
steps before them (the recorder turned on at their end: T), and P = (S - B
+ T - B) / B, a sampled period's extra in % of a step: gpuleak's sampling
costs P / K % a step."""
import os
import sys
import time

import torch

STEPS = int(sys.argv[1])
WARMUP = int(sys.argv[2]) if len(sys.argv) > 2 else 70
LAYERS = int(sys.argv[3]) if len(sys.argv) > 3 else 24
DEPTH = int(sys.argv[4]) if len(sys.argv) > 4 else 20
NUMEL = int(sys.argv[5]) if len(sys.argv) > 5 else 4096

if os.environ.get("BENCH_TORCH_RECORD") == "1":
    torch.cuda.memory._record_memory_history(stacks="python")


def at_depth(frames, fn, *args):
    """fn(*args) called from `frames` nested frames."""
    if frames <= 1:
        return fn(*args)
    return at_depth(frames - 1, fn, *args)


weights = [torch.randn(NUMEL, device="cuda", requires_grad=True) for _ in range(LAYERS)]
biases = [torch.zeros(NUMEL, device="cuda", requires_grad=True) for _ in range(LAYERS)]
opt = torch.optim.Adam(weights + biases, lr=1e-3, foreach=False)
x0 = torch.ones(NUMEL, device="cuda")
target = torch.zeros(NUMEL, device="cuda")


def forward(x):
    for w, b in zip(weights, biases):
        x = torch.tanh(x * w + b)
    return ((x - target) ** 2).mean()


def step():
    opt.zero_grad(set_to_none=True)
    loss = at_depth(DEPTH, forward, x0)
    loss.backward()
    opt.step()


def allocations():
    return torch.cuda.memory_stats().get("allocation.all.allocated", 0)


for _ in range(WARMUP):
    step()
torch.cuda.synchronize()
window = None
if os.environ.get("BENCH_TORCH_CALLGRIND"):
    import ctypes

    window = ctypes.CDLL(os.environ["BENCH_TORCH_CALLGRIND"])
before = allocations()
if window is not None:
    window.window_open()
t0 = time.perf_counter_ns()
c0 = time.process_time_ns()
SAMPLED = int(os.environ.get("BENCH_TORCH_SAMPLED", "0"))
per_step = []
for _ in range(STEPS):
    if SAMPLED:
        c = time.process_time_ns()
    step()
    if SAMPLED:
        per_step.append(time.process_time_ns() - c)
torch.cuda.synchronize()
if window is not None:
    window.window_close()
ns = time.perf_counter_ns() - t0
cpu_ns = time.process_time_ns() - c0
tensors = (allocations() - before) / STEPS
print("RESULT us_per_step=%.1f tensors_per_step=%.1f cpu_us_per_step=%.1f" % (
    ns / STEPS / 1000, tensors, cpu_ns / STEPS / 1000))


def sampled(n):
    """gpuleak's sampled steps (interpose/control/torch_steps.c)."""
    return n >= 2 and (n % SAMPLED == 0 or (n & (n - 1) == 0 and n < SAMPLED))


if SAMPLED:
    import statistics

    by_kind = {"sampled": [], "turn_on": [], "base": []}
    for i, t in enumerate(per_step):
        n = WARMUP + i + 1  # the optimizer's step number
        by_kind["sampled" if sampled(n) else "turn_on" if sampled(n + 1) else "base"].append(t / 1000)
    b, sm, on = (statistics.median(by_kind[k]) for k in ("base", "sampled", "turn_on"))
    print("SAMPLED k=%d base_us=%.0f sampled_us=%.0f turn_on_us=%.0f period_pct=%.1f" % (
        SAMPLED, b, sm, on, 100 * (sm - b + on - b) / b))
