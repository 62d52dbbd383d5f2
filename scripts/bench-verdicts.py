#!/usr/bin/env python3
"""make bench's last table: issue 46's targets ("always on"), each with the
figure it is judged on and its verdict, computed from what the sections
wrote in this run:

  scripts/bench-verdicts.py BENCH_JSON TORCH_JSON [INSTR_JSON] [--since EPOCH]

BENCH_JSON is scripts/bench.sh's bench.json (sections 1 and 2), TORCH_JSON
scripts/bench-torch.sh's bench-torch.json (section 7, wall time),
INSTR_JSON scripts/bench-torch-instr.sh's bench-torch-instr.json (section
7b: the same step in callgrind's instructions, which issue 46 states its
torch targets in and a loaded machine cannot move; never "too noisy").
A file that is
missing, unreadable, or older than EPOCH (seconds; the bench's start, so
that figures left by an earlier run never count) gives "not measured" for
its targets, as does a figure the run did not take (BENCH_ONLY, no
heaptrack).  Verdicts: met, MISSED, not measured, too noisy.  A wall-time
target of the torch step is "too noisy" when the bare step it is compared
with spread, across its own runs, over more than half its median (max -
min > 0.5 x median): on a quiet machine the spread is a few percent, and
beside other jobs it passes 100%, where a 1% or 5% target cannot be told
from noise (a loaded run printed "-43%": gpuleak faster than bare).  Exit 0
whatever the verdicts: the table reports, it does not gate.
"""
import json
import os
import sys

NOT_MEASURED = "not measured"
TOO_NOISY = "too noisy"
NOISE_SPREAD = 0.5  # the bare step's (max - min) / median beyond which a wall target is noise


def load(path, since):
    """The JSON at path, or None when it is not this run's."""
    try:
        if since is not None and os.path.getmtime(path) < since:
            return None
        with open(path) as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


def dig(doc, *keys):
    """doc[k1][k2]...; None where any level is missing or null."""
    for k in keys:
        if not isinstance(doc, dict) or doc.get(k) is None:
            return None
        doc = doc[k]
    return doc


def median(doc, *keys):
    return dig(doc, *keys, "median")


def over_bare(torch, config):
    """A torch configuration's step time over bare, as a fraction."""
    return dig(torch, "configs", config, "over_bare")


def bare_spread(torch, allocator):
    """The spread of an allocator's bare step, which its configurations are
    compared with: (max - min) / median of its runs; None when not
    recorded."""
    bare = dig(torch, "configs", allocator + ".bare")
    if not isinstance(bare, dict):
        return None
    lo, hi, mid = bare.get("us_min"), bare.get("us_max"), bare.get("us_median")
    if lo is None or hi is None or not mid:
        return None
    return (hi - lo) / mid


def threads_gain(bench):
    """gpuleak's second-thread gain over the bare program's:
    (gl 2 / gl 1) / (bare 2 / bare 1), pairs per second."""
    t = dig(bench, "threads")
    g1, g2 = median(t, "1", "gpuleak_pairs_per_s"), median(t, "2", "gpuleak_pairs_per_s")
    b1, b2 = median(t, "1", "bare_pairs_per_s"), median(t, "2", "bare_pairs_per_s")
    if not (g1 and g2 and b1 and b2):
        return None
    return (g2 / g1) / (b2 / b1)


def torch_row(torch, name, config, bound):
    return (name, over_bare(torch, config), ("<=", bound), "%+.2f%%", bare_spread(torch, config.split(".")[0]))


def instr_row(instr, name, config, bound):
    return (name, over_bare(instr, config), ("<=", bound), "%+.2f%%", None)


TORCH_TARGETS = [("native allocator, default <= 1%", "native.gl_default", 0.01),
                 ("cudaMallocAsync, default <= 5%", "async.gl_default", 0.05),
                 ("native allocator, light <= 0.5%", "native.gl_light", 0.005),
                 ("cudaMallocAsync, light <= 0.5%", "async.gl_light", 0.005)]


def targets(bench, torch, instr):
    """(target, figure, limit, how the figure reads, the baseline's spread
    or None): lower is better unless the limit is a floor (">=")."""
    x = "%.2fx"
    return [instr_row(instr, "torch step, %s (instructions)" % n, c, b) for n, c, b in TORCH_TARGETS] + [
        torch_row(torch, "torch step, %s (wall)" % n, c, b) for n, c, b in TORCH_TARGETS] + [
        ("2 threads >= 0.9x the bare program's gain from its second", threads_gain(bench), (">=", 0.9), x,
         None),
        ("depth 32 <= 1.0x the libunwind floor", dig(bench, "events", "cuda.32", "gpuleak_over_floor"),
         ("<=", 1.0), x, None),
        ("depth 32 <= 0.5x heaptrack (malloc twin)", dig(bench, "events", "cuda.32", "gpuleak_over_heaptrack"),
         ("<=", 0.5), x, None),
    ]


def verdict(value, limit, spread=None):
    if value is None:
        return NOT_MEASURED
    if spread is not None and spread > NOISE_SPREAD:
        return TOO_NOISY
    op, bound = limit
    ok = value >= bound if op == ">=" else value <= bound
    return "met" if ok else "MISSED"


def figure(value, fmt):
    return "-" if value is None else fmt % (100 * value if fmt.endswith("%%") else value)


def table(bench, torch, instr=None):
    rows = targets(bench, torch, instr)
    lines = ["Issue 46 targets (always on), from this run's figures",
             "%-60s %10s  %s" % ("target", "measured", "verdict")]
    for name, value, limit, fmt, spread in rows:
        lines.append("%-60s %10s  %s" % (name, figure(value, fmt), verdict(value, limit, spread)))
    met = sum(1 for _, v, lim, _, sp in rows if verdict(v, lim, sp) == "met")
    lines.append("   %d of %d met; the torch targets twice: in the program's instructions (section 7b, callgrind,"
                 % (met, len(rows)))
    lines.append("   as issue 46 states them) and in wall time (section 7, which a loaded machine moves)")
    spreads = [(a, bare_spread(torch, a)) for a in ("native", "async")]
    noisy = [(a, sp) for a, sp in spreads if sp is not None and sp > NOISE_SPREAD]
    if noisy:
        lines.append("   too noisy: the bare step's runs spread over %s of its median (more than %d%%);"
                     % (" and ".join("%.0f%% (%s)" % (100 * sp, a) for a, sp in noisy), 100 * NOISE_SPREAD))
        lines.append("   rerun on a quiet machine")
    return "\n".join(lines)


def main(argv):
    args = argv[1:]
    since = None
    if "--since" in args:
        i = args.index("--since")
        since = float(args[i + 1])
        del args[i:i + 2]
    if len(args) not in (2, 3):
        sys.stderr.write("usage: bench-verdicts.py BENCH_JSON TORCH_JSON [INSTR_JSON] [--since EPOCH]\n")
        return 2
    instr = load(args[2], since) if len(args) == 3 else None
    print(table(load(args[0], since), load(args[1], since), instr))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
