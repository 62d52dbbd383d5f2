"""gpuleak_memory._dump_snapshot() without a name, when GPULEAK_OUTPUT is a
directory and after the program changed directory: prints each returned
path and whether it is a file."""
import ctypes
import os
import sys

sys.path.insert(0, os.environ["GPULEAK_PYTHON_DIR"])
import gpuleak_memory as gm  # noqa: E402

cudart = ctypes.CDLL(os.environ["FAKECUDA_RT"])
p = ctypes.c_void_p()
assert cudart.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(4096)) == 0
for step in ("first", "after chdir"):
    path = gm._dump_snapshot()
    print(step, path, path is not None and os.path.isfile(path))
    os.chdir(os.environ["ELSEWHERE"])
