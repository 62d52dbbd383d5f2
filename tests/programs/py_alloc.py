"""Allocates through fakecuda's libcudart with ctypes, as a Python program
using a CUDA library would, and drives gpuleak through gpuleak_memory."""
import ctypes
import os
import sys

sys.path.insert(0, os.environ["GPULEAK_PYTHON_DIR"])
import gpuleak_memory as gm  # noqa: E402

cudart = ctypes.CDLL(os.environ["FAKECUDA_RT"])


def leak_from_python(nbytes):
    p = ctypes.c_void_p()
    rc = cudart.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(nbytes))
    assert rc == 0, rc
    return p


print("available", gm.is_available())
print("history", gm._record_memory_history(max_entries=1000))
with gm.annotate("phase one"):
    kept = [leak_from_python(4096) for _ in range(3)]
print("dumped", gm._dump_snapshot("mid.snap"))
