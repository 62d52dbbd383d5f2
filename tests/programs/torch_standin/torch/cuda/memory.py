"""torch.cuda.memory of the stand-in: the functions gpuleak calls, with
PyTorch's signatures and return formats."""
import ctypes
import os
import signal
import sys
import threading
import time

from . import _allocator


def _record_memory_history(enabled="all", context="all", stacks="all", max_entries=sys.maxsize,
                           device=None, clear_history=False):
    """As PyTorch's: enabled None turns recording off, "state" records the
    live blocks' stacks only, "all" also keeps a trace of max_entries
    events; context and stacks are accepted (the stand-in has Python stacks
    only)."""
    if enabled not in (None, False, "state", "all"):
        raise ValueError("enabled must be None, 'state' or 'all'")
    _allocator.set_history(enabled, context, stacks, max_entries)
    calls.append(("_record_memory_history", enabled, context, stacks))


calls = []  # what was asked of this module, for tests


# For tests that interrupt or slow down whoever asks (tests/t_torch_interrupt.sh):
# TORCH_STANDIN_SNAPSHOT_DELAY=S sleeps S seconds in every _snapshot();
# TORCH_STANDIN_SNAPSHOT_SIGNAL=INT or TERM sends that signal to this process
# from inside the first _snapshot(), so that Python runs its handler inside
# the call (Python runs handlers on its main thread only); =ASYNC raises
# async_exc in the calling thread (PyThreadState_SetAsyncExc), as a timeout
# library does.
async_exc = KeyboardInterrupt
_interrupted = False


def _interrupt_once():
    global _interrupted
    how = os.environ.get("TORCH_STANDIN_SNAPSHOT_SIGNAL")
    if not how or _interrupted:
        return
    _interrupted = True
    if how == "ASYNC":
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(threading.get_ident()),
                                                   ctypes.py_object(async_exc))
    else:
        os.kill(os.getpid(), getattr(signal, "SIG" + how))
    for _ in range(100):  # bytecode boundaries, where the exception is raised
        time.sleep(0.001)


def _snapshot(device=None):
    calls.append(("_snapshot",))
    _interrupt_once()
    time.sleep(float(os.environ.get("TORCH_STANDIN_SNAPSHOT_DELAY", "0")))
    return _allocator.snapshot()


def memory_allocated(device=None):
    return _allocator.allocated()


def max_memory_allocated(device=None):
    return _allocator.allocated()


def memory_reserved(device=None):
    return _allocator.reserved()


def empty_cache():
    _allocator.empty_cache()
