# Real PyTorch 2.14.1 and memory_viz (issue 33), on fakecuda
# (tests/t_torch_real.sh says how torch runs here).  gpuleak-report
# --torch-snapshot of a requested snapshot opens in the installed torch's
# own torch.cuda._memory_viz (trace_plot, segment_plot) with no error, and
# its segments and live blocks are those of torch's _dump_snapshot() at
# the same moment: addresses, sizes, pool (small/large), states, and each
# live block's Python line.  Before, the pickle showed each segment as one
# live block of its whole size.
source "$ROOT/tests/lib.sh"
torch_real_setup
prog=$ROOT/tests/programs/torch_real_viz.py

"$FAKECUDA/fakecuda-run" --devices 1 -- "$LAUNCHER" run -- "$PY" "$prog" >out.txt 2>err.txt ||
    fail "run exited $?: $(tail -3 err.txt)"
if grep -q '^fakecuda: ' err.txt; then fail "$(grep '^fakecuda: ' err.txt)"; fi
"$REPORT" --torch-snapshot gpuleak.pickle gpuleak.snap || fail "--torch-snapshot: exit $?"

got=$("$PY" - <<'PY'
import pickle
from torch.cuda import _memory_viz as viz
g = pickle.load(open("gpuleak.pickle", "rb"))
t = pickle.load(open("torch.pickle", "rb"))
assert "<html" in viz.trace_plot(g) and "<html" in viz.segment_plot(g)
def where(fr):
    return (fr[0]["filename"].rsplit("/", 1)[-1], fr[0]["line"]) if fr else None
def segments(s):
    return sorted((x["device"], x["address"], x["total_size"], x["allocated_size"], x["segment_type"]) for x in s["segments"])
def blocks(s):
    return sorted((b["address"], b["size"], b["requested_size"], b["state"],
                   where(b["frames"]) if b["state"] == "active_allocated" else None)
                  for x in s["segments"] for b in x["blocks"])
print(len(t["segments"]), segments(g) == segments(t),
      sum(b["state"] == "active_allocated" for x in t["segments"] for b in x["blocks"]), blocks(g) == blocks(t))
PY
) || fail "memory_viz or the comparison raised"
# Segments: the small pool's 2 (w and the first kept tensors, the rest) and
# the temporary's 12 MiB one; live blocks: w and the 3 kept.
expect_eq "$got" "3 True 4 True" "segments, equal to torch's; live blocks, equal to torch's"
