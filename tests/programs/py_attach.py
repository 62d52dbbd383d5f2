"""A Python program started without gpuleak, for `gpuleak attach`
(tests/t_attach_python.sh).  At start it allocates 2 MiB through ctypes and
keeps a ctypes function object for cudaMalloc (a pointer held in heap
memory, which the attach does not reach: docs/attach.md); then it answers
one command a line on stdin with "ok CMD":
  ext N       the C extension's cudaMalloc (its import slot: reached)
  ctypes N    a ctypes lookup made now (dlsym: reached)
  early N     the function object made at start (heap: not reached; the
              runtime's driver table is, so it is seen as cuMemAlloc_v2)
  free-pre    frees the 2 MiB made at start
  quit        exits with status 5"""
import ctypes
import os
import sys

import gpuleak_testext

cudart = ctypes.CDLL(os.environ["FAKECUDA_RT"])
early_malloc = cudart.cudaMalloc
pre = ctypes.c_void_p()
assert early_malloc(ctypes.byref(pre), ctypes.c_size_t(2 << 20)) == 0


def via_extension(n):
    return gpuleak_testext.alloc_gil(n)  # LEAK-LINE: ext


def via_ctypes(n):
    p = ctypes.c_void_p()
    return cudart["cudaMalloc"](ctypes.byref(p), ctypes.c_size_t(n))  # LEAK-LINE: ctypes


def via_early(n):
    p = ctypes.c_void_p()
    return early_malloc(ctypes.byref(p), ctypes.c_size_t(n))  # LEAK-LINE: early


print("ready", flush=True)
for line in sys.stdin:
    cmd, _, arg = line.strip().partition(" ")
    if cmd == "ext":
        print("ext", via_extension(int(arg)) != 0)
    elif cmd == "ctypes":
        print("ctypes", via_ctypes(int(arg)))
    elif cmd == "early":
        print("early", via_early(int(arg)))
    elif cmd == "free-pre":
        print("free-pre", cudart["cudaFree"](pre))
    elif cmd == "quit":
        break
    print("ok", cmd, flush=True)
sys.exit(5)
