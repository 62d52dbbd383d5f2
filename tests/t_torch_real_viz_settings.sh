#!/usr/bin/env bash
# Real PyTorch 2.14.1: --torch-snapshot carries PyTorch's allocator_settings
# (issue 45, item 10), on fakecuda (tests/t_torch_real.sh says how torch
# runs here).  torch_real_viz.py writes torch's own _dump_snapshot() and
# asks gpuleak for one at the same moment; the allocator_settings of the
# two pickles are equal key for key, value for value and type for type
# (gpuleak adds trace_alloc_overflowed for the newest memory_viz), with
# PyTorch's defaults and with a PYTORCH_ALLOC_CONF that sets every key the
# dict shows, both forms of roundup_power2_divisions included.  Every trace
# entry has its time_us, in order, on torch's clock (Unix microseconds: the
# two traces' spans overlap), and PyTorch's
# memory_viz reads the pickle.  Before, allocator_settings held only
# trace_alloc_overflowed.
source "$ROOT/tests/lib.sh"
torch_real_setup
prog=$ROOT/tests/programs/torch_real_viz.py

compare() { # compare DIR: the settings of DIR's two pickles, and the trace's times
    "$REPORT" --torch-snapshot "$1/gpuleak.pickle" "$1/gpuleak.snap" || fail "--torch-snapshot: exit $?"
    (cd "$1" && "$PY" - <<'PY'
import pickle
from torch.cuda import _memory_viz as viz
g = pickle.load(open("gpuleak.pickle", "rb"))
t = pickle.load(open("torch.pickle", "rb"))
assert "<html" in viz.trace_plot(g) and "<html" in viz.segment_plot(g)
gs = dict(g["allocator_settings"])
extra = {k: gs.pop(k) for k in list(gs) if k.startswith("trace_alloc_")}
ts = t["allocator_settings"]
typed = lambda d: [(k, type(v).__name__, v) for k, v in d.items()]
print(typed(gs) == typed(ts), list(extra), ts["PYTORCH_CUDA_ALLOC_CONF"], ts["max_split_size"],
      ts["garbage_collection_threshold"], ts["expandable_segments"], ts["pinned_num_register_threads"],
      [ts["roundup_power2_divisions"][str(1 << i)] for i in range(16)])
if typed(gs) != typed(ts):
    print([x for x in typed(gs) if x not in typed(ts)], [x for x in typed(ts) if x not in typed(gs)])
times = [e["time_us"] for d in g["device_traces"] for e in d]
tt = [e["time_us"] for d in t["device_traces"] for e in d]
print(len(times) > 0, all(isinstance(x, int) for x in times), times == sorted(times),
      times[0] <= tt[0] + 10**6 and times[-1] >= tt[-1] - 10**6)  # one clock: the same run's microseconds since 1970
PY
) || fail "reading the pickles"
}

mkdir plain conf
(cd plain && "$FAKECUDA/fakecuda-run" --devices 1 -- "$LAUNCHER" run -- "$PY" "$prog" >out.txt 2>err.txt) ||
    fail "run exited $?: $(tail -3 plain/err.txt)"
expect_eq "$(compare plain)" "True ['trace_alloc_overflowed']  -1 0.0 False 1 [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
True True True True" "PyTorch's default settings, as torch writes them; the trace's times"

conf='max_split_size_mb:300,garbage_collection_threshold:0.6,pinned_num_register_threads:4,release_lock_on_cudamalloc:True,pinned_use_cuda_host_register:True,graph_capture_record_stream_reuse:True,roundup_power2_divisions:[256:1,2048:4,>:8]'
(cd conf && PYTORCH_ALLOC_CONF=$conf "$FAKECUDA/fakecuda-run" --devices 1 -- "$LAUNCHER" run -- "$PY" "$prog" >out.txt 2>err.txt) ||
    fail "run exited $?: $(tail -3 conf/err.txt)"
expect_eq "$(compare conf)" "True ['trace_alloc_overflowed'] $conf $((300 * 1048576)) 0.6 False 4 [1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 4, 8, 8, 8, 8]
True True True True" "PYTORCH_ALLOC_CONF's settings, as torch writes them"
