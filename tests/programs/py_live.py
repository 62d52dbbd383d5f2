"""A Python job for the live view and the metrics file (t_live_python,
t_metrics_names): device memory allocated from Python through fakecuda.
  hold     allocates 1 MiB (at the alloc marker), says "ready PID", and runs until
           its standard input ends
  chdir D  allocates 1 MiB (tracking starts here), changes directory to D,
           allocates 1 MiB more and waits for a tick of gpuleak's writer"""
import ctypes
import os
import sys
import time

CDLL = ctypes.CDLL(os.environ["FAKECUDA_RT"])
kept = []


def alloc(nbytes):
    p = ctypes.c_void_p()
    rc = CDLL.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(nbytes))  # LIVE-LINE: alloc
    assert rc == 0, rc
    kept.append(p)


def hold():
    alloc(1 << 20)  # LIVE-LINE: hold
    print("ready", os.getpid(), flush=True)
    sys.stdin.read()


def chdir(where):
    alloc(1 << 20)
    os.chdir(where)
    alloc(1 << 20)
    time.sleep(1.3)


if __name__ == "__main__":
    if sys.argv[1] == "hold":
        hold()
    else:
        chdir(sys.argv[2])
