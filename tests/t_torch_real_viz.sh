# Real PyTorch 2.14.1 and memory_viz (issue 33), on fakecuda
# (tests/t_torch_real.sh says how torch runs here).  gpuleak-report
# --torch-snapshot of a requested snapshot opens in the installed torch's
# own torch.cuda._memory_viz (trace_plot, segment_plot) with no error, and
# its segments and live blocks are those of torch's _dump_snapshot() at
# the same moment: addresses, sizes, pool (small/large), states, and every
# block's whole Python stack (a function's caller, an nn.Module's forward
# under PyTorch's own frames; none for a cached block), and torch's own
# segsum() of the two reads alike.  Before, the pickle showed each segment
# as one live block of its whole size.
source "$ROOT/tests/lib.sh"
torch_real_setup
prog=$ROOT/tests/programs/torch_real_viz.py

torch_real_run "$prog"
"$REPORT" --torch-snapshot gpuleak.pickle gpuleak.snap || fail "--torch-snapshot: exit $?"

kept=$(site_line torch_real_viz.py PLANTED-LINE)
call=$(site_line torch_real_viz.py CALL-LINE)
fwd=$(site_line torch_real_viz.py MODULE-LINE)
net=$(site_line torch_real_viz.py NET-LINE)
first=$(site_line torch_real_viz.py FIRST-LINE)
got=$("$PY" - <<'PY'
import pickle
from torch.cuda import _memory_viz as viz
g = pickle.load(open("gpuleak.pickle", "rb"))
t = pickle.load(open("torch.pickle", "rb"))
assert "<html" in viz.trace_plot(g) and "<html" in viz.segment_plot(g)
def where(fr):
    return [(f["filename"].rsplit("/", 1)[-1], f["line"], f["name"]) for f in fr]
def segments(s):
    return sorted((x["device"], x["address"], x["total_size"], x["allocated_size"], x["segment_type"]) for x in s["segments"])
def blocks(s):
    return sorted((b["address"], b["size"], b["requested_size"], b["state"], where(b["frames"]))
                  for x in s["segments"] for b in x["blocks"])
live = [b for b in blocks(g) if b[3] == "active_allocated"]
print(len(t["segments"]), segments(g) == segments(t), len(blocks(t)),
      sum(b[3] == "active_allocated" for b in blocks(t)), blocks(g) == blocks(t), viz.segsum(g) == viz.segsum(t))
print(sorted(set((b[1], tuple(f[1:] for f in b[4] if f[0] == "torch_real_viz.py"), len(b[4])) for b in live)))
PY
) || fail "memory_viz or the comparison raised"
# Segments: the small pool's 2 (w, the first kept tensor, the module's;
# the other two kept) and the temporary's 12 MiB one; 8 blocks, 5 live:
# w (at FIRST-LINE: the recorder is on from the start), the 3 kept from make() called
# at CALL-LINE, and the module's output, 8 frames deep (relu, forward, the
# nn.Module call machinery around Sequential, the module line).
expect_eq "$got" "3 True 8 5 True True
[(65536, (($fwd, 'forward'), ($net, '<module>')), 8), (262144, (($first, '<module>'),), 1), (1048576, (($kept, 'make'), ($call, '<module>')), 2)]" \
    "segments, equal to torch's; blocks, live blocks, equal to torch's with their stacks; segsum; the live blocks' stacks"
