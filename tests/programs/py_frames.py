"""Python programs that allocate through fakecuda in the ways Python code
reaches CUDA; the LEAK-LINE markers are what the report must point at.
  paths    ctypes.CDLL (GIL released), ctypes.PyDLL (GIL held), and a C
           extension with and without releasing the GIL: one leak each
  threads  8 threads allocating while another thread holds the GIL
  memo     the same frames at the same depths with a different caller below,
           and one frame at two lines in turn: what the walk's per-depth
           memo of the previous stack must tell apart"""
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
    return alloc(lib, nbytes)  # LEAK-LINE: inner


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
    via_extension(3000, True)  # LEAK-LINE: paths-nogil
    via_extension(4000, False)  # LEAK-LINE: paths-gil


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


def site(lib, nbytes):
    return alloc(lib, nbytes)  # LEAK-LINE: site


# Two callers with the same frame size, called from the same frame: their
# frames, and site's and alloc's above them, sit at the same addresses.
def caller_a(lib, nbytes):
    return site(lib, nbytes)  # LEAK-LINE: caller-a


def caller_b(lib, nbytes):
    return site(lib, nbytes)  # LEAK-LINE: caller-b


def two_lines(lib, i):
    p = ctypes.c_void_p()
    if i % 2 == 0:
        lib.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(700))  # LEAK-LINE: even
    else:
        lib.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(800))  # LEAK-LINE: odd
    return p


def memo():
    for i in range(6):
        (caller_a if i % 2 == 0 else caller_b)(CDLL, 500 if i % 2 == 0 else 600)
    for i in range(4):
        two_lines(CDLL, i)  # LEAK-LINE: memo-two


if __name__ == "__main__":
    {"paths": paths, "threads": threads, "memo": memo}[sys.argv[1]]()
