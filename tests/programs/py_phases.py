"""Memory by phase from Python (tests/t_python_phases.sh): gpuleak_memory's
annotate() around load, two epochs of forward/backward/step and eval, with
allocations through fakecuda's libcudart (ctypes).  "step" keeps 1 MiB per
epoch."""
import ctypes
import os

import gpuleak_memory as gm  # found with no setup under gpuleak run

cudart = ctypes.CDLL(os.environ["FAKECUDA_RT"])
MiB = 1 << 20


def malloc(nbytes):
    p = ctypes.c_void_p()
    assert cudart.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(nbytes)) == 0
    return p


def free(p):
    assert cudart.cudaFree(p) == 0


kept = []
with gm.annotate("load"):
    weights = malloc(32 * MiB)
for epoch in (1, 2):
    with gm.annotate("epoch %d" % epoch):
        with gm.annotate("forward"):
            acts = [malloc(4 * MiB) for _ in range(4)]
        with gm.annotate("backward"):
            grads = malloc(8 * MiB)
            for a in acts:
                free(a)
            free(grads)
        with gm.annotate("step"):
            kept.append(malloc(1 * MiB))
with gm.annotate("eval"):
    free(malloc(6 * MiB))
free(weights)
