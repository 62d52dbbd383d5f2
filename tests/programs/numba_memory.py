"""numba.cuda as a real client of the driver API (ctypes, dlsym): device,
pinned, mapped and managed arrays, numba's deferred deallocation, and one
planted leak per kind.  Each allocation line carries a marker the test
greps for (LEAK-LINE: / FREED-LINE:)."""
import gc
import sys

import numpy as np
from numba import cuda

import numba_cuda13  # noqa: F401  (CUDA 13 ABIs numba 0.56 predates)


def freed():
    # Deferred deallocation: numba queues the frees of dropped arrays and
    # runs them when the queue is flushed (here: explicitly).
    a = cuda.device_array(3000, dtype=np.uint8)  # FREED-LINE: device
    b = cuda.pinned_array(5000, dtype=np.uint8)  # FREED-LINE: pinned
    with cuda.defer_cleanup():
        del a, b
        gc.collect()
    # numba's pending frees are the memory manager's queue
    cuda.current_context().memory_manager.deallocations.clear()


def leak():
    keep = [
        cuda.device_array(10000, dtype=np.uint8),  # LEAK-LINE: device
        cuda.pinned_array(20000, dtype=np.uint8),  # LEAK-LINE: pinned
        cuda.mapped_array(30000, dtype=np.uint8),  # LEAK-LINE: mapped
        cuda.managed_array(40000, dtype=np.uint8),  # LEAK-LINE: managed
    ]
    return keep


def main():
    freed()
    held = leak()
    d = cuda.to_device(np.arange(100, dtype=np.float64))
    assert d.copy_to_host()[99] == 99.0
    del d
    gc.collect()
    cuda.current_context().memory_manager.deallocations.clear()
    sys.stdout.write("numba ok %d\n" % len(held))
    sys.stdout.flush()
    # The planted leaks are still held at exit: numba tears no context
    # down then, so they are live in the final snapshot.


if __name__ == "__main__":
    main()
