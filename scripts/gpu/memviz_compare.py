"""Compares gpuleak's --torch-snapshot output with torch's own _dump_snapshot
of the same moment of the same run, for scripts/gpu-check.sh:

    python3 memviz_compare.py GPULEAK.pickle TORCH.pickle MAX_RESERVED

Both must load in torch.cuda._memory_viz, list the same device-0 segments
(address, size), and give the same peak of reserved memory (replayed from
the trace where it has segment events, else the segments at the end, which
in a run that never frees a segment is the peak).  Prints one line; exit 0
when everything matches, 1 otherwise (reason on stderr).
"""
import pickle
import sys


def segments(snap, dev=0):
    return sorted((s["address"], s["total_size"]) for s in snap.get("segments", [])
                  if s.get("device", 0) == dev)


def trace_peak(snap, dev=0):
    traces = snap.get("device_traces") or []
    if len(traces) <= dev:
        return None
    cur = peak = 0
    seen = False
    for ev in traces[dev]:
        a = ev.get("action")
        if a in ("segment_alloc", "segment_map"):
            cur += ev["size"]
            seen = True
        elif a in ("segment_free", "segment_unmap"):
            cur -= ev["size"]
            seen = True
        peak = max(peak, cur)
    return peak if seen else None


def main():
    from torch.cuda import _memory_viz as mv
    gl = pickle.load(open(sys.argv[1], "rb"))
    th = pickle.load(open(sys.argv[2], "rb"))
    max_reserved = int(sys.argv[3])
    problems = []
    for name, fn in (("segment_plot", getattr(mv, "segment_plot", None)),
                     ("trace_plot", getattr(mv, "trace_plot", None))):
        if fn is None:
            continue
        try:
            out = fn(gl)
            if not out:
                problems.append("_memory_viz.%s gave nothing for gpuleak's snapshot" % name)
        except Exception as e:
            problems.append("_memory_viz.%s failed on gpuleak's snapshot: %s: %s" % (name, type(e).__name__, e))
    sg, st = segments(gl), segments(th)
    if sg != st:
        only_g = [s for s in sg if s not in st][:3]
        only_t = [s for s in st if s not in sg][:3]
        problems.append("segments differ: gpuleak %d (%d B), torch %d (%d B); only gpuleak %s, only torch %s" % (
            len(sg), sum(s[1] for s in sg), len(st), sum(s[1] for s in st), only_g, only_t))
    pg = trace_peak(gl)
    pt = trace_peak(th)
    peak_g = pg if pg is not None else sum(s[1] for s in sg)
    peak_t = pt if pt is not None else sum(s[1] for s in st)
    if peak_g != max_reserved or peak_t != max_reserved:
        problems.append("peak: gpuleak %d, torch snapshot %d, max_memory_reserved %d" % (peak_g, peak_t, max_reserved))
    if problems:
        print("; ".join(problems), file=sys.stderr)
        return 1
    print("%d segments identical (%d B); peak %d B == torch's snapshot == max_memory_reserved; "
          "loads in _memory_viz (segment_plot, trace_plot)" % (len(sg), sum(s[1] for s in sg), peak_g))
    return 0


if __name__ == "__main__":
    sys.exit(main())
