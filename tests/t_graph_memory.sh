# CUDA graph memory nodes (tests/programs/graph_memory.c): a graph
# allocation is live from the launch that reaches its node to its free (in
# the graph, in another graph, by cudaFree/cudaFreeAsync, or by an auto-free
# relaunch), blamed on the line that created the node -- the explicit
# cudaGraphAddMemAllocNode, the generic cudaGraphAddNode, or the
# cudaMallocAsync a stream capture turned into a node -- never on the
# launch.  Captured or instantiated nodes that are never launched allocate
# nothing.  The same exact outcome through the shared runtime, the static
# runtime (seen at the driver layer only) and the per-thread default stream
# (captured on stream 0), each allocation counted once.
source "$ROOT/tests/lib.sh"
leak=$(site_line graph_memory.c 'LEAK-SITE: graph_leak')
generic=$(site_line graph_memory.c 'LEAK-SITE: generic_leak')
kept=$(site_line graph_memory.c 'PEAK-SITE: graph_kept')
captured=$(site_line graph_memory.c 'PEAK-SITE: capture_alloc')
for how in shared static ptds; do
    prog=$TPROG/graph_memory
    [ "$how" = shared ] || prog=${prog}_$how
    GPULEAK_OUTPUT=$how.snap traced "$prog"
    "$REPORT" --json "$how.snap" >"$how.json"
    "$REPORT" "$how.snap" >"$how.txt"
    check_json "$how.json" <<PY
how = "$how"
explicit = "cuGraphAddMemAllocNode" if how == "static" else "cudaGraphAddMemAllocNode"
captured = {"shared": "cudaMallocAsync", "static": "cuMemAllocAsync", "ptds": "cudaMallocAsync_ptsz"}[how]
# the leaks: exact bytes, count, kind, api and the line that made the node
eq([(l["kind"], l["device"], l["api"], l["bytes"], l["count"], frame(l["frames"][0])) for l in leaks],
   [("graph", 0, explicit, 655360, 1, "graph_leak graph_memory.c:$leak"),
    ("graph", 0, "cuGraphAddNode_v2", 393216, 1, "generic_leak graph_memory.c:$generic")], how + ": leaks")
eq([l["via_static_runtime"] for l in leaks],
   ["cudaGraphAddMemAllocNode", "cudaGraphAddNode"] if how == "static" else [None, None], how + ": via")
eq(d["leak_summary"]["by_kind"], [{"kind": "graph", "kind_code": 7, "device": 0, "bytes": 1048576, "count": 2}],
   how + ": leak summary")
# 4 allocations of graph 1's launch and 2 for each of graph 2's 4 launches;
# frees: graph 1's scratch in the graph and kept by cudaFree, graph 2's
# scratch in each launch, its 2 MiB by 2 auto-free relaunches, graph 3 and
# cudaFreeAsync.  Nothing else: no pool allocation for the captured
# cudaMallocAsync calls, nothing for graphs 4 and 5, nothing for the
# relaunch that failed.
d0 = devices[0]
eq((d0["alloc_count"], d0["free_count"], d0["unknown_free_count"], d0["live_bytes"], d0["live_count"]),
   (12, 10, 0, 1048576, 2), how + ": device 0 counts")
eq(d0["alloc_bytes_total"], 1048576 + 262144 + 655360 + 393216 + 4 * (2097152 + 524288), how + ": bytes allocated")
eq(sorted(devices), [0], how + ": devices")
# the peak: during graph 2's first launch (not on a relaunch, whose
# auto-free comes before its scratch allocation)
eq(d0["peak_bytes"], 655360 + 393216 + 2097152, how + ": peak")
eq(sorted((c["frames"][0]["function"], c["bytes"], c["count"]) for c in d0["peak_composition"]),
   [("capture_alloc", 2097152, 1), ("generic_leak", 393216, 1), ("graph_leak", 655360, 1)],
   how + ": peak composition")
before = d0["peak_history"]["before"]
eq([(b["kind"], b["api"], b["size"], frame(b["frames"][0])) for b in before if b["size"] in (1048576, 2097152)],
   [("graph", explicit, 1048576, "graph_kept graph_memory.c:$kept"),
    ("graph", captured, 2097152, "capture_alloc graph_memory.c:$captured")], how + ": history before the peak")
eq(sorted({b["kind"] for b in before}), ["graph"], how + ": kinds in the history")
# the graph memory pool in the driver's view (cuDeviceGetGraphMemAttribute):
# it keeps the peak of graph memory, 3 MiB, until cuDeviceGraphMemTrim; the
# live 1 MiB is used.  No other pool: nothing was allocated from one.
eq([(x["device"], p["graph"], p["reserved_bytes"], p["used_bytes"], p["reserved_high"], p["used_high"])
    for x in d["fragmentation"]["devices"] for p in x["pools"]],
   [(0, True, 3145728, 1048576, 3145728, 3145728)], how + ": graph memory pool")
eq(d["fragmentation"]["devices"][0]["pool_reserved_bytes"], 0, how + ": pools besides it")
PY
    grep -qx "    graph memory pool: 3,145,728 bytes (3.0 MiB) reserved, 1,048,576 bytes (1.0 MiB) used by live graph allocations (2.0 MiB kept until cuDeviceGraphMemTrim)" "$how.txt" ||
        fail "$how: text graph memory pool: $(grep 'graph memory pool' "$how.txt")"
    api=cudaGraphAddMemAllocNode
    [ "$how" = static ] && api="cuGraphAddMemAllocNode via the static runtime's cudaGraphAddMemAllocNode"
    grep -qF "655,360 bytes (640.0 KiB) in 1 allocation: graph memory on device 0 ($api), not freed at exit" "$how.txt" ||
        fail "$how: text report leak line"
    grep -q "#0 graph_leak (graph_memory.c:$leak)" "$how.txt" || fail "$how: text report frame"
done

# The pre-12.0 five-argument ABIs of instantiation: what Python's ctypes
# finds by the bare name cuGraphInstantiate (dlsym), and what cuGetProcAddress
# hands out below 12000 (cuGraphInstantiate_v2 from 11000).  Two captured
# cudaMallocAsync nodes, each graph instantiated through one of them and
# launched: the first allocation is left live, the second freed.
cat >old_instantiate.py <<'PY'
import ctypes, sys
cu, rt = ctypes.CDLL("libcuda.so.1"), ctypes.CDLL("libcudart.so.13")
def ok(rc, what):
    if rc != 0:
        sys.exit(f"{what}: {rc}")
def captured(stream, n):
    graph, p = ctypes.c_void_p(), ctypes.c_void_p()
    ok(rt.cudaStreamBeginCapture(stream, 0), "cudaStreamBeginCapture")
    ok(rt.cudaMallocAsync(ctypes.byref(p), ctypes.c_size_t(n), stream), "cudaMallocAsync")
    ok(rt.cudaStreamEndCapture(stream, ctypes.byref(graph)), "cudaStreamEndCapture")
    return graph, p
proto = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p,
                         ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p, ctypes.c_size_t)
by_name = proto(("cuGraphInstantiate", cu))
fn = ctypes.c_void_p()
ok(rt.cudaFree(None), "cudaFree(NULL)")  # the runtime's context
ok(cu.cuGetProcAddress(b"cuGraphInstantiate", ctypes.byref(fn), 11000, ctypes.c_uint64(0)), "cuGetProcAddress")
at_11000 = proto(fn.value)
stream = ctypes.c_void_p()
ok(rt.cudaStreamCreate(ctypes.byref(stream)), "cudaStreamCreate")
err, log = ctypes.c_void_p(), ctypes.create_string_buffer(64)
for instantiate, n, keep in ((by_name, 1500000, True), (at_11000, 2500000, False)):
    graph, p = captured(stream, n)
    exe = ctypes.c_void_p()
    ok(instantiate(ctypes.byref(exe), graph, ctypes.byref(err), log, len(log)), f"instantiate {n}")
    ok(cu.cuGraphLaunch(exe, stream), "cuGraphLaunch")
    ok(rt.cudaStreamSynchronize(stream), "cudaStreamSynchronize")
    if not keep:
        ok(rt.cudaFree(p), "cudaFree")
print("OBS launched")
PY
GPULEAK_OUTPUT=old_inst.snap traced python3 old_instantiate.py >old_inst.out || fail "old_instantiate.py: $(cat old_inst.out)"
expect_eq "$(cat old_inst.out)" "OBS launched" "old instantiate"
"$REPORT" --json old_inst.snap >old_inst.json
check_json old_inst.json <<'PY'
eq([(l["kind"], l["device"], l["api"], l["bytes"], l["count"]) for l in leaks],
   [("graph", 0, "cudaMallocAsync", 1500000, 1)], "old ABIs: the live graph allocation")
d0 = devices[0]
eq((d0["alloc_count"], d0["free_count"], d0["unknown_free_count"], d0["alloc_bytes_total"], d0["live_bytes"]),
   (2, 1, 0, 4000000, 1500000), "old ABIs: both launches' allocations, one freed")
PY
