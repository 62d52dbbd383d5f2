#!/usr/bin/env bash
# --torch-snapshot: a pickle that PyTorch's memory_viz opens.  Loaded with
# python3's pickle and checked against what memory_viz needs: protocol 2-4,
# only opcodes its JavaScript unpickler knows, integers of at most 8 bytes,
# the segment/block/trace schema, and the replay the viewer does (backwards
# from the segments through device_traces) never finding an allocation or a
# segment missing or twice, ending with what existed before the history
# (nothing, for a history that starts at seq 1), a 'snapshot' entry's size
# being the bytes live then, allocator_settings.trace_alloc_overflowed
# saying whether the ring wrapped, and allocator_settings' PyTorch keys
# from the process's configuration variables.  The fields and types are those that
# PyTorch's memory_viz (MemoryViz.js, process_alloc_data.js, _memory_viz.py)
# reads without checking (docs/memory-viz.md).  Scenarios: the known
# history, a ring that wrapped with events the replay must drop, Python
# frames, no history at all, graph memory.
source "$ROOT/tests/lib.sh"
cat > check.py <<'PY'
import collections, json, pickle, pickletools, sys
path, report = sys.argv[1], json.load(open(sys.argv[2]))
want = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
raw = open(path, "rb").read()
def fail(msg):
    sys.exit("FAIL: %s" % msg)
def eq(a, b, what):
    if a != b:
        fail("%s: got %r, expected %r" % (what, a, b))

# opcodes: those memory_viz's JS unpickler (MemoryViz.js) implements
JS_OPS = {"PROTO", "FRAME", "EMPTY_DICT", "EMPTY_LIST", "EMPTY_TUPLE", "MARK", "SETITEMS", "SETITEM",
          "APPENDS", "APPEND", "BININT", "BININT1", "BININT2", "LONG1", "SHORT_BINUNICODE",
          "BINUNICODE", "NEWTRUE", "NEWFALSE", "NONE", "BINPUT", "LONG_BINPUT", "MEMOIZE",
          "BINGET", "LONG_BINGET", "TUPLE", "TUPLE1", "TUPLE2", "TUPLE3", "BINFLOAT", "STOP",
          "DICT", "LIST"}
ops = collections.Counter()
mark_items, marks = [], []
for op, arg, pos in pickletools.genops(raw):
    ops[op.name] += 1
    if op.name == "PROTO" and not 2 <= arg <= 4:
        fail("protocol %d" % arg)
    if op.name == "LONG1" and not -(1 << 63) <= arg < (1 << 63):
        fail("integer %d needs more than 8 bytes" % arg)
bad = set(ops) - JS_OPS
if bad:
    fail("opcodes memory_viz cannot read: %s" % sorted(bad))
if raw[:2] not in (b"\x80\x02", b"\x80\x03", b"\x80\x04"):
    fail("no PROTO 2-4 header")
d = pickle.loads(raw)

# schema
for k in ("segments", "device_traces"):
    if k not in d:
        fail("no %r" % k)
ndev = len(d["device_traces"])
def frames_ok(fr, where):
    if not isinstance(fr, list):
        fail("%s: frames %r" % (where, fr))
    for f in fr:
        if set(f) != {"filename", "line", "name"} or not isinstance(f["filename"], str) or \
                not isinstance(f["name"], str) or type(f["line"]) is not int:
            fail("%s: frame %r" % (where, f))
SEG_KEYS = {"device", "address", "total_size", "allocated_size", "active_size", "requested_size",
            "stream", "segment_type", "blocks", "frames"}
def ints(o, keys, where):
    # JS: arithmetic, toFixed(), toString(16) -- a Number; a bool or None is a blank page
    for k in keys:
        if k in o and type(o[k]) is not int:
            fail("%s: %s is %r" % (where, k, o[k]))
segs = collections.defaultdict(dict)   # device -> address -> size
blocks = collections.defaultdict(dict)
for s in d["segments"]:
    missing = SEG_KEYS - set(s)
    if missing:
        fail("segment without %s" % sorted(missing))
    if not 0 <= s["device"] < ndev:
        fail("segment of device %d, but %d device traces" % (s["device"], ndev))
    ints(s, SEG_KEYS - {"segment_type", "blocks", "frames"}, "segment")
    if s["segment_type"] not in ("small", "large"):
        fail("segment_type %r" % s["segment_type"])
    frames_ok(s["frames"], "segment")
    addr = s["address"]
    for b in s["blocks"]:
        if not {"size", "requested_size", "state", "frames"} <= set(b):
            fail("block %r" % b)
        ints(b, ("address", "size", "requested_size"), "block")
        if b["state"] not in ("active_allocated", "active_pending_free", "inactive"):
            fail("state %r" % b["state"])
        if b.get("address", addr) != addr:
            fail("blocks do not tile their segment")
        frames_ok(b["frames"], "block")
        if b["state"] == "active_allocated":
            blocks[s["device"]][addr] = b["size"]
        addr += b["size"]
    eq(addr - s["address"], s["total_size"], "blocks fill the segment")
    eq(sum(b["size"] for b in s["blocks"] if b["state"] != "inactive"), s["active_size"], "active_size")
    if s["address"] in segs[s["device"]]:
        fail("two segments at 0x%x" % s["address"])
    segs[s["device"]][s["address"]] = s["total_size"]
ACTIONS = {"alloc", "free_requested", "free_completed", "segment_alloc", "segment_free", "oom", "snapshot"}
for dev, trace in enumerate(d["device_traces"]):
    last_t = 0
    for e in trace:
        if e["action"] not in ACTIONS:
            fail("action %r" % e["action"])
        need = {"action", "size", "stream", "time_us", "frames"} | ({"device_free"} if e["action"] == "oom" else {"addr"})
        if not need <= set(e):
            fail("trace entry without %s: %r" % (sorted(need - set(e)), e))
        frames_ok(e["frames"], "trace entry")
        ints(e, ("addr", "size", "stream", "time_us", "device_free"), "trace entry")
        if e["time_us"] < last_t:
            fail("time goes backwards on device %d" % dev)
        last_t = e["time_us"]

# the viewer's replay: backwards from the segments (MemoryViz.js simulate_memory)
before = 0
peak = {}
for dev, trace in enumerate(d["device_traces"]):
    S, B = dict(segs[dev]), dict(blocks[dev])
    def inside(a):
        return any(sa <= a < sa + sz for sa, sz in S.items())
    for k in range(len(trace) - 1, -1, -1):
        e = trace[k]
        a, act = e.get("addr"), e["action"]
        if act == "segment_free":
            if a in S:
                fail("device %d event %d: segment 0x%x freed while it exists" % (dev, k, a))
            S[a] = e["size"]
        elif act == "free_completed":
            if a in B or not inside(a):
                fail("device %d event %d: block 0x%x freed twice or outside a segment" % (dev, k, a))
            B[a] = e["size"]
            if k == 0 or trace[k - 1]["action"] != "free_requested" or trace[k - 1]["addr"] != a:
                fail("free_completed without its free_requested")
        elif act == "free_requested":
            if a not in B:
                fail("free_requested of a block that is not there")
        elif act == "alloc":
            if a not in B or B[a] != e["size"]:
                fail("device %d event %d: alloc of 0x%x that the later state does not have" % (dev, k, a))
            del B[a]
        elif act == "segment_alloc":
            if a not in S or any(a <= x < a + S[a] for x in B):
                fail("device %d event %d: segment 0x%x allocated that is missing or still holds blocks" % (dev, k, a))
            del S[a]
    before += len(B)
    if set(S) != set(B):
        fail("device %d: segments and blocks before the history differ" % dev)
    # forward: memory_viz's 'Active Memory Timeline' total never goes negative
    total = sum(B.values())
    hi = total
    for e in trace:
        if e["action"] == "alloc":
            total += e["size"]
        elif e["action"] == "free_completed":
            total -= e["size"]
        elif e["action"] == "snapshot":
            eq(e["size"], total, "device %d: a snapshot entry's size (PyTorch: its active bytes)" % dev)
        if total < 0:
            fail("negative total on device %d" % dev)
        hi = max(hi, total)
    eq(total, sum(blocks[dev].values()), "device %d: the replay ends at the segments" % dev)
    peak[dev] = hi

g = d["gpuleak"]
eq(g["live_before_history"], before, "live_before_history")
st = d.get("allocator_settings", {})
eq(st.get("trace_alloc_overflowed"), g["history_wrapped"], "allocator_settings.trace_alloc_overflowed")
live = collections.Counter()
for k in report["leak_summary"]["by_kind"]:
    if k["kind"] in ("device", "pool", "managed", "graph") and k["device"] >= 0:
        live[k["device"]] += k["bytes"]
eq({dev: sum(v.values()) for dev, v in segs.items()}, dict(live), "segment bytes per device = live device/pool/managed/graph bytes")
tl = report.get("timeline", {})
if tl.get("present") and tl["first_seq"] == 1 and not g["dropped_events"]:
    eq(before, 0, "nothing before a complete history")
if g["history_wrapped"]:
    eq(st.get("trace_alloc_max_entries"), tl.get("events"), "trace_alloc_max_entries: the ring's events")
for k, v in want.items():
    got = {"peak": peak, "wrapped": g["history_wrapped"], "dropped": g["dropped_events"],
           "kept": g["kept_events"], "before": before, "nseg": len(d["segments"]),
           "actions": dict(collections.Counter(e["action"] for t in d["device_traces"] for e in t))}[k]
    if k == "peak":
        got = {str(x): y for x, y in got.items()}
    eq(got, v, k)
print("ok: %d segments, %d trace entries, %d before the history, %d dropped" %
      (len(d["segments"]), sum(map(len, d["device_traces"])), before, g["dropped_events"]))
PY

# the known history: 28 MiB peak (device memory), managed kept, virtual not
"$TPROG/snapgen" history h.snap
"$REPORT" --torch-snapshot h.pickle h.snap || fail "exit $?"
"$REPORT" --json h.snap > h.json
python3 check.py h.pickle h.json '{"peak": {"0": 29360128}, "wrapped": false, "dropped": 0, "before": 0, "nseg": 5,
  "actions": {"segment_alloc": 7, "alloc": 7, "free_requested": 2, "free_completed": 2, "segment_free": 2, "oom": 1}}' \
    || fail "history pickle"
python3 - h.pickle h.json <<'PY' || exit 1
import json, pickle, sys
d = pickle.load(open(sys.argv[1], "rb"))
j = json.load(open(sys.argv[2]))
f = d["segments"][0]["blocks"][0]["frames"]
if [x["name"] for x in f] != ["alloc_weights", "load_model", "capture"] or not f[0]["filename"].endswith("snapgen.c"):
    sys.exit("FAIL: frames %r" % f)
oom = [e for e in d["device_traces"][0] if e["action"] == "oom"][0]
if (oom["device_free"], oom["time_us"]) != (1 << 30, 1700000000000000 + 80000):
    sys.exit("FAIL: oom %r" % oom)
# the failing call's stack, as PyTorch's OOM entries carry it: the report's
want = [{"filename": f["file"], "line": f["line"], "name": f["function"]} for f in j["out_of_memory"]["events"][0]["frames"]]
if [x["name"] for x in oom["frames"]] != ["alloc_activations", "train_loop", "capture"] or oom["frames"] != want:
    sys.exit("FAIL: oom frames %r, expected %r" % (oom["frames"], want))
PY

# a ring that wrapped (first seq > 1): the 400 live allocations predate it
# (no alloc event: "before the trace" for memory_viz), and 4 allocations the
# history neither frees nor leaves live are dropped and counted
"$TPROG/snapgen" bench w.snap 400 40 4000
"$REPORT" --torch-snapshot w.pickle w.snap
"$REPORT" --json w.snap > w.json
python3 check.py w.pickle w.json '{"wrapped": true, "dropped": 4, "nseg": 400, "before": 400}' || fail "wrapped pickle"

# no history: segments only, empty traces
"$TPROG/snapgen" nohistory n.snap
"$REPORT" --torch-snapshot n.pickle n.snap
"$REPORT" --json n.snap > n.json
python3 check.py n.pickle n.json '{"actions": {}, "nseg": 5}' || fail "no-history pickle"

# strings that are not UTF-8 still make a loadable pickle
"$TPROG/snapgen" weird x.snap
"$REPORT" --torch-snapshot x.pickle x.snap
"$REPORT" --json x.snap > x.json
python3 check.py x.pickle x.json || fail "weird pickle"

# a real run whose ring wrapped: the demo with room for 10 events; the
# model's weights, allocated before the window, are freed inside it
GPULEAK_MAX_ENTRIES=10 GPULEAK_OUTPUT=ring.snap traced "$TPROG/demo_train" >/dev/null
"$REPORT" --torch-snapshot ring.pickle ring.snap
"$REPORT" --json ring.snap > ring.json
python3 check.py ring.pickle ring.json '{"wrapped": true}' || fail "wrapped pickle from a real run"
check_json ring.json <<'PY'
eq((d["timeline"]["events"], d["timeline"]["first_seq"] > 1), (10, True), "a wrapped ring of 10 events")
PY

# allocator_settings as PyTorch 2.14.1 writes them, from the configuration
# the process had (docs/memory-viz.md): with both variables set the old
# name's string is in force (as torch reads it, measured); a number for
# roundup_power2_divisions sets every bucket.  Without either, torch's
# defaults (the ring pickle above).
PYTORCH_CUDA_ALLOC_CONF='expandable_segments:True,max_split_size_mb:64,roundup_power2_divisions:4,garbage_collection_threshold:0.25' \
    PYTORCH_ALLOC_CONF=max_split_size_mb:32 GPULEAK_OUTPUT=conf.snap traced "$TPROG/demo_train" >/dev/null
"$REPORT" --torch-snapshot conf.pickle conf.snap || fail "--torch-snapshot of conf.snap: exit $?"
got=$(python3 - conf.pickle ring.pickle <<'PY'
import pickle, sys
for path in sys.argv[1:]:
    st = pickle.load(open(path, "rb"))["allocator_settings"]
    print([(k, type(v).__name__, v) for k, v in st.items() if k != "roundup_power2_divisions"])
    print(st["roundup_power2_divisions"])
PY
) || fail "reading allocator_settings"
zero=$(python3 -c 'print({str(1 << i): 0 for i in range(16)})')
four=$(python3 -c 'print({str(1 << i): 4 for i in range(16)})')
expect_eq "$got" "[('PYTORCH_CUDA_ALLOC_CONF', 'str', 'expandable_segments:True,max_split_size_mb:64,roundup_power2_divisions:4,garbage_collection_threshold:0.25'), \
('max_split_size', 'int', 67108864), ('garbage_collection_threshold', 'float', 0.25), ('expandable_segments', 'bool', True), \
('pinned_num_register_threads', 'int', 1), ('release_lock_on_cudamalloc', 'bool', False), ('pinned_use_cuda_host_register', 'bool', False), \
('graph_capture_record_stream_reuse', 'bool', False), ('max_round_threshold', 'int', -1), ('max_cached_size', 'int', -1), \
('trace_alloc_overflowed', 'bool', False)]
$four
[('PYTORCH_CUDA_ALLOC_CONF', 'str', ''), ('max_split_size', 'int', -1), ('garbage_collection_threshold', 'float', 0.0), \
('expandable_segments', 'bool', False), ('pinned_num_register_threads', 'int', 1), ('release_lock_on_cudamalloc', 'bool', False), \
('pinned_use_cuda_host_register', 'bool', False), ('graph_capture_record_stream_reuse', 'bool', False), ('max_round_threshold', 'int', -1), \
('max_cached_size', 'int', -1), ('trace_alloc_overflowed', 'bool', True), ('trace_alloc_max_entries', 'int', 10)]
$zero" "allocator_settings: both variables set (the old name in force); none"

# Python frames become memory_viz frames {filename, line, name}
if [ -z "$GL_SAN" ]; then
    export FAKECUDA_RT=$FAKECUDA/libcudart.so.13 PYTHONPATH=$TPROG/python
    py=$ROOT/tests/programs/py_frames.py
    GPULEAK_OUTPUT=py.snap traced python3 "$py" paths
    "$REPORT" --torch-snapshot py.pickle py.snap
    "$REPORT" --json py.snap > py.json
    python3 check.py py.pickle py.json || fail "python pickle"
    python3 - py.pickle "$(grep -n 'LEAK-LINE: alloc' "$py" | cut -d: -f1)" <<'PY' || exit 1
import pickle, sys
d = pickle.load(open(sys.argv[1], "rb"))
tops = sorted((s["total_size"], s["frames"][0]["filename"].split("/")[-1], s["frames"][0]["line"], s["frames"][0]["name"])
              for s in d["segments"] if s["total_size"] in (1000, 2000))
want = [(1000, "py_frames.py", int(sys.argv[2]), "alloc"), (2000, "py_frames.py", int(sys.argv[2]), "alloc")]
if tops != want:
    sys.exit("FAIL: python frames %r, expected %r" % (tops, want))
PY
fi

set +e
"$REPORT" --torch-snapshot o.pickle h.snap n.snap 2>err; expect_eq $? 2 "two snapshots"
"$REPORT" --torch-snapshot o.pickle --folded leaks h.snap 2>err; expect_eq $? 2 "with --folded"
set -e
echo ok

# graph memory (tests/programs/graph_memory.c): allocations that come and go
# at the same address with each launch replay like any other; the two leaked
# graph allocations are the segments, the 3 MiB peak is the trace's
GPULEAK_OUTPUT=g.snap traced "$TPROG/graph_memory"
"$REPORT" --torch-snapshot g.pickle g.snap
"$REPORT" --json g.snap > g.json
python3 check.py g.pickle g.json '{"peak": {"0": 3145728}, "dropped": 0, "before": 0, "nseg": 2,
  "actions": {"segment_alloc": 12, "alloc": 12, "free_requested": 10, "free_completed": 10, "segment_free": 10, "snapshot": 1}}' \
    || fail "graph memory pickle"
