"""Python programs that allocate through fakecuda in the ways Python code
reaches CUDA; the LEAK-LINE markers are what the report must point at.
  paths    ctypes.CDLL (GIL released), ctypes.PyDLL (GIL held), and a C
           extension with and without releasing the GIL: one leak each
  threads  8 threads allocating while another thread holds the GIL"""
import ctypes
import os
import sys
import threading

CDLL = ctypes.CDLL(os.environ["FAKECUDA_RT"])
PYDLL = ctypes.PyDLL(os.environ["FAKECUDA_RT"])


def alloc(lib, nbytes):
    p = ctypes.c_void_p()
    rc = lib.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(nbytes))  # LEAK-LINE: alloc
    assert rc == 0, rc
    return p


def inner(lib, nbytes):
    return alloc(lib, nbytes)


def outer(lib, nbytes):
    return inner(lib, nbytes)


def via_extension(nbytes, release):
    import gpuleak_testext
    if release:
        return gpuleak_testext.alloc_nogil(nbytes)  # LEAK-LINE: ext-nogil
    return gpuleak_testext.alloc_gil(nbytes)  # LEAK-LINE: ext-gil


def paths():
    outer(CDLL, 1000)
    outer(PYDLL, 2000)
    via_extension(3000, True)
    via_extension(4000, False)


def leak_in_thread(t):
    for _ in range(t + 1):
        alloc(CDLL, 100 * (t + 1))
    for _ in range(50):  # balanced churn on top
        p = alloc(CDLL, 64)
        CDLL.cudaFree(p)


def threads():
    stop = threading.Event()
    libc = ctypes.PyDLL(None)

    def hog():
        # Holds the GIL for 20 ms at a time: usleep through PyDLL keeps it.
        while not stop.is_set():
            libc.usleep(20000)

    h = threading.Thread(target=hog)
    h.start()
    workers = [threading.Thread(target=leak_in_thread, args=(t,)) for t in range(8)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    stop.set()
    h.join()


if __name__ == "__main__":
    {"paths": paths, "threads": threads}[sys.argv[1]]()
