"""Device memory for the planted tests: fakecuda's libcudart through ctypes,
as a Python program using a CUDA library would allocate."""
import ctypes
import os

_cudart = ctypes.CDLL(os.environ["FAKECUDA_RT"])
MiB = 1 << 20


def gpu_alloc(nbytes):
    p = ctypes.c_void_p()
    rc = _cudart.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(nbytes))
    assert rc == 0, rc
    return p


def gpu_free(p):
    assert _cudart.cudaFree(p) == 0
