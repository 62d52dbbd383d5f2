"""gpuleak plan: what PyTorch's device memory held at its allocated peak.

Imported by sitecustomize.py at the planned program's exit only.  The
program ran with PyTorch's recorder on from torch.cuda's initialization
(enabled="all": every allocation and free of device 0 in order, each
allocation with its Python stack).  compose() replays that trace to find
the first moment allocated reached its maximum, and sorts the blocks live
then:

  - parameters, gradients, optimizer state: blocks holding the storages
    of the optimizers' params, their .grad and optimizer.state tensors, as
    the step hook saw them after each optimizer step (an allocation is
    named by its ordinal: what storage address X held at step k is the
    last allocation at X before that step's allocation count);
  - workspaces: the cuBLAS/cuBLASLt workspaces PyTorch allocated from its
    cache, found by freeing them at exit (torch._C._cuda_clearCublasWorkspaces)
    and seeing which allocations that freed;
  - activations: every other live block (activations, inputs, losses,
    temporaries), by the first Python frame outside torch's package.

Sizes are the allocator's block sizes, as max_memory_allocated counts them:
the trace gives requested sizes, so the replay keeps each segment's blocks
and splits them as PyTorch 2.x's caching allocator does (rounding to 512
bytes; a small-pool block is split when 512 bytes or more remain, a
large-pool one when more than 1 MiB remains; freed blocks merge with free
neighbours of their segment).  The replay is checked against PyTorch's own
counters (the peak, the current allocated bytes and the number of
allocations); where one differs, compose() raises Inexact with the reason.
"""

import bisect
import os

MAX_TRACE = 1_000_000  # entries the recorder keeps; a full ring is refused
_MIN_BLOCK = 512
_SMALL = 1 << 20


class Inexact(Exception):
    """The replay does not give PyTorch's own figures: no composition."""


def _round_size(size):
    return _MIN_BLOCK if size < _MIN_BLOCK else (size + _MIN_BLOCK - 1) // _MIN_BLOCK * _MIN_BLOCK


class _Segments:
    """The caching allocator's blocks, segment by segment, as the trace
    tells them: addr -> [size, free, segment]; ends -> addr for merging."""

    def __init__(self):
        self.blocks = {}
        self.ends = {}

    def _put(self, addr, size, free, seg):
        self.blocks[addr] = [size, free, seg]
        self.ends[addr + size] = addr

    def _drop(self, addr):
        size = self.blocks.pop(addr)[0]
        del self.ends[addr + size]

    def segment_alloc(self, addr, size):
        self._put(addr, size, True, addr)

    def segment_free(self, addr, size):
        for a in [a for a, b in self.blocks.items() if b[2] == addr]:
            self._drop(a)

    def alloc(self, addr, requested):
        """The block's size: the free block at addr, split or whole."""
        block = self.blocks.get(addr)
        if block is None or not block[1]:
            raise Inexact("an allocation at 0x%x where the replay has no free block" % addr)
        size, seg = _round_size(requested), block[2]
        rest = block[0] - size
        if rest < 0:
            raise Inexact("an allocation of %d bytes at 0x%x, in a free block of %d" % (size, addr, block[0]))
        split = rest >= _MIN_BLOCK if size <= _SMALL else rest > _SMALL
        if not split:
            size, rest = block[0], 0
        self._drop(addr)
        self._put(addr, size, False, seg)
        if rest:
            self._put(addr + size, rest, True, seg)
        return size

    def free(self, addr):
        """free_completed: the block is free and merges with free neighbours."""
        block = self.blocks.get(addr)
        if block is None:
            raise Inexact("a free at 0x%x that the replay never allocated" % addr)
        size, _, seg = block
        after = self.blocks.get(addr + size)
        if after is not None and after[1] and after[2] == seg:
            self._drop(addr + size)
            size += after[0]
        before = self.ends.get(addr)
        self._drop(addr)
        if before is not None and self.blocks[before][1] and self.blocks[before][2] == seg:
            size += self.blocks[before][0]
            self._drop(before)
            addr = before
        self._put(addr, size, True, seg)


def _replay(trace, stop=None):
    """Walks the trace (up to index stop): yields (index, allocated, live)
    after each event; live: addr -> (ordinal, size, frames)."""
    segs, live, allocated, ordinal = _Segments(), {}, 0, 0
    for i, e in enumerate(trace[:stop]):
        act, addr = e["action"], e.get("addr")  # "oom" and "annotate" name no block
        if act == "segment_alloc":
            segs.segment_alloc(addr, e["size"])
        elif act == "segment_free":
            segs.segment_free(addr, e["size"])
        elif act == "alloc":
            ordinal += 1
            size = segs.alloc(addr, e["size"])
            live[addr] = (ordinal, size, e.get("frames") or [])
            allocated += size
        elif act == "free_requested":
            if addr not in live:
                raise Inexact("a free of 0x%x that is not live in the replay" % addr)
            allocated -= live.pop(addr)[1]
        elif act == "free_completed":
            segs.free(addr)
        elif act in ("segment_map", "segment_unmap"):  # expandable segments
            raise Inexact("expandable segments (%s) are not replayed" % act)
        yield i, allocated, live


def _peak(trace):
    """(index of the first event at the maximum, maximum, allocations,
    per address the ordinals of its allocations, per free the ordinal it
    freed)."""
    best, at, allocated, ordinals, freed = -1, -1, 0, {}, []
    ordinal = 0
    for i, allocated, live in _replay(trace):
        e = trace[i]
        if e["action"] == "alloc":
            ordinal += 1
            ordinals.setdefault(e["addr"], []).append(ordinal)
        elif e["action"] == "free_requested":
            freed.append(_last_before(ordinals, e["addr"], ordinal))
        if allocated > best:
            best, at = allocated, i
    return at, best, ordinal, ordinals, freed


def _live_at(trace, at):
    """The blocks live just after trace[at]."""
    live = {}
    for _, _, live in _replay(trace, at + 1):
        pass
    return live


def _last_before(ordinals, addr, count):
    """The ordinal of the last allocation at addr among the first count."""
    seen = ordinals.get(addr, [])
    k = bisect.bisect_right(seen, count)
    return seen[k - 1] if k else None


def _categories(steps, ordinals, workspace_ordinals):
    """ordinal -> category, from the step hook's records: [(allocations
    so far, {category: [storage addresses]})]; the first listed wins."""
    cat = {o: "workspaces" for o in workspace_ordinals}
    for name in ("parameters", "gradients", "optimizer_state"):
        for count, tensors in steps:
            for addr in tensors.get(name, ()):
                o = _last_before(ordinals, addr, count)
                if o is not None:
                    cat.setdefault(o, name)
    return cat


def _user_frame(frames, torch_dir):
    """The first frame outside torch's package (frames innermost first)."""
    for f in frames:
        name = f.get("filename") or ""
        if not name.startswith(torch_dir) and not name.startswith("<"):
            return name, f.get("line"), f.get("name")
    return None, None, "(no Python frame: autograd's backward thread, or another thread without Python)"


def _by_bytes(line):
    """Most bytes first; then by file and line, so that ties are stable."""
    (filename, number, _), size = line
    return -size, filename or "", number or 0


def compose(torch, steps):
    """The composition of device 0's allocated peak (a dict), or Inexact."""
    stats = torch.cuda.memory_stats(0)
    clear = getattr(torch._C, "_cuda_clearCublasWorkspaces", None)
    if clear is not None:
        clear()
    snap = torch.cuda.memory._snapshot()
    traces = snap.get("device_traces") or [[]]
    trace = traces[0]
    if not trace:
        raise Inexact("PyTorch's recorder kept no events")
    if len(trace) >= MAX_TRACE:
        raise Inexact("the recorder's ring (%d entries) overflowed" % MAX_TRACE)
    before_clear = stats["allocation.all.freed"]
    at, best, count, ordinals, freed = _peak(trace)
    if best != stats["allocated_bytes.all.peak"]:
        raise Inexact("the replayed peak %d is not PyTorch's %d" % (best, stats["allocated_bytes.all.peak"]))
    if count != stats["allocation.all.allocated"]:
        raise Inexact("the trace has %d allocations, PyTorch counted %d" % (count, stats["allocation.all.allocated"]))
    cat = _categories(steps, ordinals, [o for o in freed[before_clear:] if o is not None])
    torch_dir = os.path.dirname(torch.__file__) + os.sep
    parts = {"parameters": 0, "gradients": 0, "optimizer_state": 0, "workspaces": 0, "activations": 0}
    lines = {}
    for ordinal, size, frames in _live_at(trace, at).values():
        kind = cat.get(ordinal, "activations")
        parts[kind] += size
        if kind == "activations":
            key = _user_frame(frames, torch_dir)
            lines[key] = lines.get(key, 0) + size
    parts["allocated"] = best
    parts["activations_by_line"] = [{"file": f, "line": n, "function": fn, "bytes": b}
                                    for (f, n, fn), b in sorted(lines.items(), key=_by_bytes)]
    return parts
