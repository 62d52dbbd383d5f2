"""gpuleak's counterpart of torch.cuda.memory's history and snapshot calls.

For any Python program running under gpuleak (``gpuleak run -- python ...``
or ``LD_PRELOAD=libgpuleak.so python ...``), whatever framework it uses:

    import gpuleak_memory as gm
    gm._record_memory_history(max_entries=100000)
    with gm.annotate("epoch 3"):
        train_one_epoch()
    path = gm._dump_snapshot("epoch3.snap")   # then: gpuleak-report epoch3.snap

The functions talk to libgpuleak.so through ctypes.  Without the library
preloaded they do nothing, return None, and warn once.
"""

import contextlib
import ctypes
import os
import warnings

__all__ = ["is_available", "_record_memory_history", "_dump_snapshot", "annotate"]

# The ring of a "record everything" call (PyTorch's default max_entries is
# sys.maxsize) is capped here: 1,000,000 events take 72 MB.
_MAX_ENTRIES_CAP = 1_000_000

_lib = None
_warned = False


def _gpuleak():
    """The preloaded library's public API, or None (warning once)."""
    global _lib, _warned
    if _lib is None:
        process = ctypes.CDLL(None)
        try:
            process.gpuleak_snapshot_name.argtypes = [ctypes.c_char_p, ctypes.c_char_p,
                                                      ctypes.c_size_t]
            process.gpuleak_snapshot_name.restype = ctypes.c_int
            process.gpuleak_annotate.argtypes = [ctypes.c_char_p]
            process.gpuleak_annotate.restype = ctypes.c_int
            process.gpuleak_record_history.argtypes = [ctypes.c_int, ctypes.c_long]
            process.gpuleak_record_history.restype = ctypes.c_int
        except AttributeError:
            if not _warned:
                warnings.warn("gpuleak_memory: libgpuleak.so is not preloaded; "
                              "start the program with 'gpuleak run -- python ...'",
                              RuntimeWarning, stacklevel=3)
                _warned = True
            return None
        _lib = process
    return _lib


def is_available():
    """True when the program runs under gpuleak."""
    global _warned
    quiet, _warned = _warned, True  # asking is not a reason to warn
    try:
        return _gpuleak() is not None
    finally:
        _warned = quiet


def _record_memory_history(enabled="all", context=None, stacks=None,
                           max_entries=_MAX_ENTRIES_CAP, device=None):
    """Turns the history on (enabled not None/False) or off, like
    torch.cuda.memory._record_memory_history.  context, stacks and device are
    accepted for compatibility: gpuleak always records stacks, for every
    device.  Returns True when the library accepted the request."""
    del context, stacks, device
    lib = _gpuleak()
    if lib is None:
        return None
    on = enabled not in (None, False)
    entries = min(int(max_entries), _MAX_ENTRIES_CAP) if on else 0
    return lib.gpuleak_record_history(1 if on else 0, entries) == 0


def _dump_snapshot(filename=None):
    """Writes a gpuleak snapshot now and returns its path (None on failure).
    filename None: the next name from GPULEAK_OUTPUT, returned absolute (the
    library says which file it wrote: the pattern may name a directory, and
    relative names are resolved where tracking started, whatever the working
    directory is now).  (PyTorch's version writes a pickle;
    `gpuleak-report --torch-snapshot` makes one from this.)"""
    lib = _gpuleak()
    if lib is None:
        return None
    path = None if filename is None else os.fsencode(filename)
    written = ctypes.create_string_buffer(4096)  # the library's longest name
    if lib.gpuleak_snapshot_name(path, written, len(written)) != 0:
        return None
    return filename if filename is not None else os.fsdecode(written.value)


@contextlib.contextmanager
def annotate(label):
    """Marks the timeline with `label` on entry and `label (end)` on exit."""
    lib = _gpuleak()
    if lib is not None:
        lib.gpuleak_annotate(str(label).encode("utf-8", "replace"))
    try:
        yield
    finally:
        if lib is not None:
            lib.gpuleak_annotate((str(label) + " (end)").encode("utf-8", "replace"))
