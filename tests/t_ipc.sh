# Memory another process exported and this one maps (tests/programs/
# ipc_share.c): the exporter shares three buffers by CUDA IPC handle and a
# pool block by pool pointer; the importer opens one handle twice, closes or
# frees every mapping but one, and exits.  Its report names the mapping left
# open -- exact bytes, count, API, function and line -- in its own section,
# not among the leaks; its device peak and counters are its own memory only;
# each mapping is one record whichever layer the call went through (shared
# runtime -> driver, the driver directly, the static runtime via
# cuGetProcAddress).  The exporter's report is untouched by the importer.
source "$ROOT/tests/lib.sh"
for how in runtime driver static; do
    prog=$TPROG/ipc_share mode=$how
    [ "$how" = static ] && prog=$TPROG/ipc_share_static mode=runtime
    mkdir "$how" && (cd "$how" && traced "$prog" "$mode" >pids) || fail "$how: run"
    exp=$(awk '$1 == "exporter" {print $2}' "$how/pids")
    imp=$(awk '$1 == "importer" {print $2}' "$how/pids")
    final=$how/gpuleak.$imp.1.snap # .0 is mapped.snap, requested mid-run
    "$REPORT" --json "$final" >"$how/imp.json"
    "$REPORT" "$final" >"$how/imp.txt"
    "$REPORT" --json "$how/gpuleak.$exp.0.snap" >"$how/exp.json"
    fn=$([ "$how" = driver ] && echo cu_leak_mapping || echo rt_leak_mapping)
    open_api=$([ "$how" = runtime ] && echo cudaIpcOpenMemHandle || echo cuIpcOpenMemHandle_v2)
    line=$(site_line ipc_share.c "LEAK-SITE: $fn")
    check_json "$how/imp.json" <<PY
how = "$how"
open_api = "$open_api"
eq(leaks, [], how + ": no leaks of its own")
m = d["mapped"]
eq([(g["bytes"], g["count"], g["kind"], g["device"], g["api"], frame(g["frames"][0])) for g in m["groups"]],
   [(3000000, 1, "ipc", 0, open_api, "$fn ipc_share.c:$line")], how + ": the mapping never closed")
eq(m["groups"][0]["via_static_runtime"], "cudaIpcOpenMemHandle" if how == "static" else None, how + ": via")
ls = d["leak_summary"]
eq((ls["bytes"], ls["count"], ls["leaked_bytes"], ls["mapped_bytes"], ls["mapped_count"]),
   (3000000, 1, 0, 3000000, 1), how + ": summary")
eq([(k["kind"], k["bytes"]) for k in ls["by_kind"]], [("ipc", 3000000)], how + ": by kind")
# The device is this process's memory: 4,000,000 bytes allocated while 6.5 MB
# of mappings were open, and freed.
dv = device0_own_memory(how, 4000000, 1, 1, "cu_own" if how == "driver" else "rt_own")
eq([e["kind"] for e in dv["peak_history"]["before"]], ["device"], how + ": before the peak")
# One record per mapping (A opened twice is one), none twice through the
# runtime and the driver: 4 mapped + 1 own, 3 released + 1 own.
t = d["timeline"]
eq((t["allocs"], t["frees"]), (5, 4), how + ": history events")
eq(t["devices"][0]["max_bytes"], 4000000, how + ": usage timeline")
eq([(k["kind"], k["peak_bytes"]) for k in dv["peak_history"]["by_kind"]],
   [("device", 4000000), ("ipc", 1000000 + 2000000 + 3000000 + 500000)], how + ": highest by kind")
PY
    # Mid-run, all four mapped: one record each (A, opened twice, is one),
    # each under the API the program called; no device counters at all.
    "$REPORT" --json "$how/mapped.snap" >"$how/mid.json"
    import_api=$([ "$how" = runtime ] && echo cudaMemPoolImportPointer || echo cuMemPoolImportPointer)
    pre=$([ "$how" = driver ] && echo cu || echo rt)
    check_json "$how/mid.json" <<PY
eq(d["snapshot"]["reason"], "request", "$how: mid-run snapshot")
eq(sorted((g["bytes"], g["count"], g["api"], g["frames"][0]["function"]) for g in d["mapped"]["groups"]),
   [(500000, 1, "$import_api", "${pre}_import"), (1000000, 1, "$open_api", "${pre}_open"),
    (2000000, 1, "$open_api", "${pre}_open"), (3000000, 1, "$open_api", "${pre}_leak_mapping")],
   "$how: all four mapped")
eq((leaks, devices), ([], {}), "$how: nothing of its own yet")
PY
    grep -q '), mapped at the snapshot (on request)$' <("$REPORT" "$how/mapped.snap") || fail "$how: mid-run text"
    check_json "$how/exp.json" <<PY
eq((leaks, d["mapped"]["groups"]), ([], []), "$how: exporter freed everything")
eq((devices[0]["peak_bytes"], devices[0]["alloc_count"], devices[0]["free_count"]),
   (1000000 + 2000000 + 3000000 + 500000, 4, 4), "$how: exporter's peak is its memory")
PY
    grep -qx '    never released:   3,000,000 bytes (2.9 MiB) in 1 mapping from 1 stack' "$how/imp.txt" ||
        fail "$how: summary line"
    grep -qx 'MAPPED FROM OTHER PROCESSES OR APIS' "$how/imp.txt" || fail "$how: section"
    grep -q "^3,000,000 bytes (2.9 MiB) in 1 mapping: ipc memory on device 0 ($open_api.*), never closed at exit$" \
        "$how/imp.txt" || fail "$how: group line"
    grep -qx "    #0 $fn (ipc_share.c:$line) \[$(basename "$prog")\]" "$how/imp.txt" || fail "$how: stack"
    grep -qx '    of which mapped from other processes or APIs: 3,000,000 bytes (2.9 MiB) in 1 mapping' "$how/imp.txt" ||
        fail "$how: leak summary line"
done
# The HTML page carries the same figures.
"$REPORT" --html page.html "runtime/gpuleak.$(awk '$1 == "importer" {print $2}' runtime/pids).1.snap"
grep -q '"mapped_bytes":3000000,"mapped_count":1' page.html || fail "html summary"

# The reporter on a known snapshot (tests/report/snapgen.c "ipc"): a mapping
# on PyTorch's caching-allocator stack stays a mapping (its built-in rule
# takes only the cudaMalloc block there; PyTorch opens IPC handles from that
# namespace), a pool pointer says "freed", a user rule moves a mapping to
# "suppressed", and folded leaks and merge's leaked figures leave mappings out.
"$TPROG/snapgen" ipc s.snap
"$REPORT" --json s.snap >s.json
check_json s.json <<'PY'
eq([(l["bytes"], l["frames"][0]["function"]) for l in leaks], [(4194304, "alloc_activations")], "leaks")
eq([(g["bytes"], g["rule"]) for g in d["allocator_caches"]["groups"]],
   [(2097152, "pytorch-caching-allocator")], "cached")
m = d["mapped"]
eq([(g["bytes"], g["api"], g["frames"][0]["function"], "rule" in g) for g in m["groups"]],
   [(8388608, "cudaIpcOpenMemHandle", "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(int)", False),
    (1048576, "cuMemPoolImportPointer", "alloc_weights", False)], "mapped")
eq((m["bytes"], m["count"], m["groups_total"]), (9437184, 2, 2), "mapped totals")
ls = d["leak_summary"]
eq((ls["bytes"], ls["leaked_bytes"], ls["cached_bytes"], ls["mapped_bytes"], ls["mapped_count"]),
   (15728640, 4194304, 2097152, 9437184, 2), "summary")
eq(devices[0]["live_bytes"], 6291456, "device counters")
PY
"$REPORT" s.snap | grep -qx '1,048,576 bytes (1.0 MiB) in 1 mapping: ipc memory on device 0 (cuMemPoolImportPointer), never freed at exit' ||
    fail "pool pointer line"
printf '{\n   weights\n   ...\n   fun:alloc_w*\n}\n' >w.supp
"$REPORT" --json --suppressions w.supp s.snap >u.json
check_json u.json <<'PY'
eq([(g["bytes"], g["rule"]) for g in d["suppressed"]["groups"]], [(1048576, "weights")], "user rule")
eq([g["bytes"] for g in d["mapped"]["groups"]], [8388608], "mapped left")
PY
expect_eq "$("$REPORT" --folded leaks s.snap)" "device_0:device;capture;train_loop;alloc_activations 4194304" "folded leaks"
snap_set s.snap s2.snap PROCESS 0 pid 1 # another process: merge keeps one snapshot per process
"$REPORT" merge --json s.snap s2.snap >m.json
expect_eq "$(jget m.json '[(r["live_bytes"], r["leaked_bytes"]) for r in d["ranks"]]')" \
    "[[15728640, 4194304], [15728640, 4194304]]" "merge"

# A reset of the importer's context before it frees the pool pointer: the
# pointer belongs to the exporter's pool, not to the context, so it stays
# live and its free is valid; the IPC mapping left open goes with the
# context, a leak until that reset.
mkdir reset && (cd reset && traced "$TPROG/ipc_share" driver-reset >pids) || fail "driver-reset: run"
imp=$(awk '$1 == "importer" {print $2}' reset/pids)
"$REPORT" --json "reset/gpuleak.$imp.1.snap" >reset.json
line=$(site_line ipc_share.c "LEAK-SITE: cu_leak_mapping")
check_json reset.json <<PY
eq((leaks, d["mapped"]["groups"], d["invalid_frees"]["count"]), ([], [], 0), "nothing live, no invalid free")
eq([(g["bytes"], g["kind"], g["api"], g["teardown"], frame(g["frames"][0])) for g in d["teardown_leaks"]["groups"]],
   [(3000000, "ipc", "cuIpcOpenMemHandle_v2", "cuDevicePrimaryCtxReset_v2", "cu_leak_mapping ipc_share.c:$line")],
   "the open mapping went with the context")
PY

# The pre-11.0 ABI of the driver's open, cuIpcOpenMemHandle (same arguments,
# same effect as _v2): what Python's ctypes finds by the bare name (dlsym),
# and what cuGetProcAddress hands out below 11000.  An exporter (not traced)
# shares two buffers; the importer opens the first through the bare name and
# closes it, and leaves the second, opened at 10020, open.
cat >v1_open.py <<'PY'
import ctypes, os, subprocess, sys
cu = ctypes.CDLL("libcuda.so.1")
class Handle(ctypes.Structure):
    _fields_ = [("reserved", ctypes.c_ubyte * 64)]
def ok(rc, what):
    if rc != 0:
        sys.exit(f"{what}: {rc}")
def context():
    dev, ctx = ctypes.c_int(), ctypes.c_void_p()
    ok(cu.cuInit(0), "cuInit")
    ok(cu.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
    ok(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
    ok(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
if sys.argv[1:] == ["export"]:
    context()
    ptrs = []
    for n in (1000000, 3000000):
        p, h = ctypes.c_uint64(), Handle()
        ok(cu.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(n)), "cuMemAlloc_v2")
        ok(cu.cuIpcGetMemHandle(ctypes.byref(h), p), "cuIpcGetMemHandle")
        print(bytes(h).hex(), flush=True)
        ptrs.append(p)
    sys.stdin.read()  # until the importer is done
    for p in ptrs:
        ok(cu.cuMemFree_v2(p), "cuMemFree_v2")
    sys.exit(0)
env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD" and not k.startswith("GPULEAK")}
exp = subprocess.Popen([sys.executable, __file__, "export"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
handles = [Handle.from_buffer_copy(bytes.fromhex(exp.stdout.readline().decode())) for _ in range(2)]
context()
proto = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_uint64), Handle, ctypes.c_uint)
by_name = proto(("cuIpcOpenMemHandle", cu))
fn = ctypes.c_void_p()
ok(cu.cuGetProcAddress(b"cuIpcOpenMemHandle", ctypes.byref(fn), 10020, ctypes.c_uint64(0)), "cuGetProcAddress")
at_10020 = proto(fn.value)
a, b = ctypes.c_uint64(), ctypes.c_uint64()
ok(by_name(ctypes.byref(a), handles[0], 1), "cuIpcOpenMemHandle")
ok(cu.cuIpcCloseMemHandle(a), "cuIpcCloseMemHandle")
ok(at_10020(ctypes.byref(b), handles[1], 1), "cuIpcOpenMemHandle@10020")
exp.stdin.close()
ok(exp.wait(), "exporter")
print("OBS opened")
PY
traced_script v1_open "OBS opened" "v1 opens"
check_json v1_open.json <<'PY'
eq(leaks, [], "v1: no leaks")
eq([(g["bytes"], g["count"], g["kind"], g["api"]) for g in d["mapped"]["groups"]],
   [(3000000, 1, "ipc", "cuIpcOpenMemHandle")], "v1: the mapping left open")
eq((d["timeline"]["allocs"], d["timeline"]["frees"], d["invalid_frees"]["count"]), (2, 1, 0), "v1: opened twice, closed once")
PY
