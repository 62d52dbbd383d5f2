"""torch.cuda.memory of the stand-in: the functions gpuleak calls, with
PyTorch's signatures and return formats."""
import sys

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


def _snapshot(device=None):
    calls.append(("_snapshot",))
    return _allocator.snapshot()


def memory_allocated(device=None):
    return _allocator.allocated()


def max_memory_allocated(device=None):
    return _allocator.allocated()


def memory_reserved(device=None):
    return _allocator.reserved()


def empty_cache():
    _allocator.empty_cache()
