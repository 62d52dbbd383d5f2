"""The stand-in's caching allocator, modelled on c10's CUDACachingAllocator:
sizes rounded to 512 bytes; requests up to 1 MiB served from 2 MiB segments
(the small pool), up to 10 MiB from 20 MiB segments, larger ones from
segments rounded up to 2 MiB (the large pool); a block is split when what
remains is at least 512 bytes (small pool) or more than 1 MiB (large pool);
the best fitting free block of the pool is reused; a freed block stays in its
segment, merged with free neighbours, until empty_cache() returns whole
free segments with cudaFree.  One device (0) and one stream (0).  Each
segment keeps its free blocks in a set, so that a program with 100k live
tensors (t_torch_stacks.sh) allocates in time linear in free blocks, not in
all blocks."""
import ctypes
import os
import traceback

MIN_BLOCK = 512
SMALL_SIZE = 1 << 20
SMALL_BUFFER = 2 << 20
LARGE_BUFFER = 20 << 20
MIN_LARGE_ALLOC = 10 << 20
ROUND_LARGE = 2 << 20

_cudart = None


def _rt():
    global _cudart
    if _cudart is None:
        # ctypes.CDLL releases the GIL around each call, as PyTorch's
        # allocator runs cudaMalloc without it.
        _cudart = ctypes.CDLL(os.environ.get("FAKECUDA_RT", "libcudart.so"))
    return _cudart


def round_size(size):
    return MIN_BLOCK if size < MIN_BLOCK else MIN_BLOCK * ((size + MIN_BLOCK - 1) // MIN_BLOCK)


def allocation_size(size):
    if size <= SMALL_SIZE:
        return SMALL_BUFFER
    if size < MIN_LARGE_ALLOC:
        return LARGE_BUFFER
    return ROUND_LARGE * ((size + ROUND_LARGE - 1) // ROUND_LARGE)


class Block:
    __slots__ = ("address", "size", "requested_size", "allocated", "segment", "prev", "next", "frames")

    def __init__(self, address, size, segment):
        self.address, self.size, self.segment = address, size, segment
        self.requested_size = 0
        self.allocated = False
        self.prev = self.next = None
        self.frames = []


class Segment:
    def __init__(self, address, size, small):
        self.address, self.total_size, self.small = address, size, small
        self.first = Block(address, size, self)
        self.free = {self.first}


_segments = []           # in allocation order
_history = None          # (context, stacks) while recording, else None
_trace = []
_trace_max = 0
_here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _frames():
    """The Python stack of the caller, innermost first, without the
    stand-in's own frames (PyTorch records from C++, where the innermost
    Python frame is the one that called into torch)."""
    out = []
    for f in reversed(traceback.extract_stack()):
        if os.path.abspath(f.filename).startswith(_here + os.sep):
            continue
        out.append({"filename": f.filename, "line": f.lineno, "name": f.name})
    return out


def _record(action, addr, size, frames):
    if _trace_max > 0:
        _trace.append({"action": action, "addr": addr, "size": size, "stream": 0, "frames": frames})
        del _trace[:-_trace_max]


def _blocks(seg):
    b = seg.first
    while b is not None:
        yield b
        b = b.next


def malloc(nbytes):
    size = round_size(nbytes)
    small = size <= SMALL_SIZE
    best = None
    for seg in _segments:
        if seg.small != small:
            continue
        for b in seg.free:
            if b.size >= size and (best is None or (b.size, b.address) < (best.size, best.address)):
                best = b
    if best is None:
        p = ctypes.c_void_p()
        nseg = allocation_size(size)
        rc = _rt().cudaMalloc(ctypes.byref(p), ctypes.c_size_t(nseg))
        if rc != 0:
            raise RuntimeError("CUDA out of memory (cudaMalloc returned %d)" % rc)
        seg = Segment(p.value, nseg, small)
        _segments.append(seg)
        best = seg.first
        _record("segment_alloc", seg.address, nseg, [])
    remaining = best.size - size
    if (small and remaining >= MIN_BLOCK) or (not small and remaining > SMALL_SIZE):
        rest = Block(best.address + size, remaining, best.segment)
        rest.prev, rest.next = best, best.next
        if best.next is not None:
            best.next.prev = rest
        best.next = rest
        best.size = size
        best.segment.free.add(rest)
    best.segment.free.discard(best)
    best.allocated = True
    best.requested_size = nbytes
    best.frames = _frames() if _history is not None else []
    _record("alloc", best.address, best.size, best.frames)
    return best


def free(block):
    block.allocated = False
    block.requested_size = 0
    _record("free_completed", block.address, block.size, block.frames)
    block.frames = []
    free_set = block.segment.free
    free_set.add(block)
    nxt = block.next
    if nxt is not None and not nxt.allocated:
        free_set.discard(nxt)
        block.size += nxt.size
        block.next = nxt.next
        if nxt.next is not None:
            nxt.next.prev = block
    prv = block.prev
    if prv is not None and not prv.allocated:
        free_set.discard(block)
        prv.size += block.size
        prv.next = block.next
        if block.next is not None:
            block.next.prev = prv


def empty_cache():
    for seg in list(_segments):
        if not seg.first.allocated and seg.first.next is None:
            _rt().cudaFree(ctypes.c_void_p(seg.address))
            _segments.remove(seg)
            _record("segment_free", seg.address, seg.total_size, [])


def set_history(enabled, context, stacks, max_entries):
    global _history, _trace_max
    if enabled is None or enabled is False:
        _history = None
        _trace_max = 0
        return
    _history = (context, stacks)
    _trace_max = max_entries if enabled == "all" else 0


def snapshot():
    segs = []
    for seg in _segments:
        blocks = []
        for b in _blocks(seg):
            blocks.append({"address": b.address, "size": b.size,
                           "requested_size": b.requested_size if b.allocated else 0,
                           "state": "active_allocated" if b.allocated else "inactive",
                           "frames": list(b.frames)})
        alloc = sum(b["size"] for b in blocks if b["state"] == "active_allocated")
        segs.append({"device": 0, "address": seg.address, "total_size": seg.total_size, "stream": 0,
                     "segment_type": "small" if seg.small else "large", "segment_pool_id": (0, 0),
                     "is_expandable": False, "allocated_size": alloc, "active_size": alloc,
                     "requested_size": sum(b["requested_size"] for b in blocks), "blocks": blocks})
    return {"segments": segs, "device_traces": [list(_trace)], "allocator_settings": {}}


def allocated():
    return sum(b.size for seg in _segments for b in _blocks(seg) if b.allocated)


def reserved():
    return sum(seg.total_size for seg in _segments)
