# Every runtime allocation family through the shared runtime (exported
# symbols), the static runtime (caught at the driver layer, where the runtime
# reaches the driver through cuGetProcAddress) and a plugin loaded RTLD_LOCAL
# (its libcudart is invisible to RTLD_NEXT): exact bytes, counts, kinds and
# leaking function, each allocation counted once.
source "$ROOT/tests/lib.sh"
run() { GPULEAK_OUTPUT=$1.snap traced "${@:2}" >/dev/null; "$REPORT" --json "$1.snap" >"$1.json"; }
run shared "$TPROG/runtime_kinds" all
run static "$TPROG/runtime_kinds_static" all
run plugin "$TPROG/plugin_host" "$TPROG/runtime_kinds_plugin.so" all
run ptds "$TPROG/runtime_kinds_ptds" all
for how in shared static plugin ptds; do
    check_json "$how.json" <<PY
how = "$how"
def user_function(frames):
    # The static runtime lives in the program: skip its frames, which come
    # before the program's own function.
    for f in frames:
        if f["function"] and f["function"].startswith("leak_"):
            return f["function"]
    return None
got = sorted((l["kind"], l["device"], l["api"], l["bytes"], l["count"], user_function(l["frames"])) for l in leaks)
rt = {"cudaMalloc": "cuMemAlloc_v2", "cudaMallocManaged": "cuMemAllocManaged",
      "cudaMallocPitch": "cuMemAllocPitch_v2", "cudaMallocAsync": "cuMemAllocAsync",
      "cudaMallocFromPoolAsync": "cuMemAllocFromPoolAsync", "cudaMallocHost": "cuMemHostAlloc",
      "cudaHostAlloc": "cuMemHostAlloc", "cudaHostRegister": "cuMemHostRegister_v2",
      "cudaMallocArray": "cuArrayCreate_v2", "cudaMalloc3D": "cuMemAllocPitch_v2",
      "cudaMalloc3DArray": "cuArray3DCreate_v2", "cudaMallocMipmappedArray": "cuMipmappedArrayCreate"}
ptsz = {"cudaMallocAsync": "cudaMallocAsync_ptsz", "cudaMallocFromPoolAsync": "cudaMallocFromPoolAsync_ptsz"}
api = {"static": lambda a: rt[a], "ptds": lambda a: ptsz.get(a, a)}.get(how, lambda a: a)
want = sorted([
    ("device", 0, api("cudaMalloc"), 100000, 1, "leak_device"),
    ("managed", 0, api("cudaMallocManaged"), 200000, 1, "leak_managed"),
    ("device", 0, api("cudaMallocPitch"), 1024 * 30, 1, "leak_pitch"),
    ("pool", 0, api("cudaMallocAsync"), 300000, 1, "leak_async"),
    ("pool", 0, api("cudaMallocFromPoolAsync"), 400000, 1, "leak_from_pool"),
    ("host-pinned", -1, api("cudaMallocHost"), 500000, 1, "leak_host"),
    ("host-pinned", -1, api("cudaHostAlloc"), 600000, 1, "leak_host_alloc"),
    ("host-registered", -1, api("cudaHostRegister"), 700000, 1, "leak_registered"),
    ("array", 0, api("cudaMallocArray"), 20000, 1, "leak_array"),
    ("device", 0, api("cudaMalloc3D"), 512 * 10 * 3, 1, "leak_3d"),  # fakecuda pitch: 512
    ("array", 0, api("cudaMalloc3DArray"), 4000, 1, "leak_array3d"),
    ("array", 0, api("cudaMallocMipmappedArray"), 20480, 1, "leak_mipmap"),
])
eq(got, want, how + ": leaks")
# The runtime's own frames are folded away: the top frame is the program's.
eq(sorted(l["frames"][0]["function"] for l in leaks), sorted(w[5] for w in want), how + ": top frames")
# Caught at the driver layer, the static runtime's API call is named.
inv = {v: k for k, v in rt.items()}
inv["cuMemAllocPitch_v2"] = None  # two runtime calls map to each: check below
inv["cuMemHostAlloc"] = None      # NVIDIA's runtime never asks for cuMemAllocHost
def via_want(l):
    if how != "static":
        return None
    if l["api"] == "cuMemAllocPitch_v2":
        return "cudaMalloc3D" if l["frames"][0]["function"] == "leak_3d" else "cudaMallocPitch"
    if l["api"] == "cuMemHostAlloc":
        return "cudaMallocHost" if l["frames"][0]["function"] == "leak_host" else "cudaHostAlloc"
    return inv[l["api"]]
eq([l["via_static_runtime"] for l in leaks], [via_want(l) for l in leaks], how + ": via static runtime")
# Balanced use of every family first (8 allocations) plus the 9 leaks:
# counted exactly once each, split between device 0 and the host.
eq((devices[0]["alloc_count"], devices[0]["free_count"]), (5 + 9, 5), how + ": device 0 counts")
eq((devices[-1]["alloc_count"], devices[-1]["free_count"]), (3 + 3, 3), how + ": host counts")
eq((devices[0]["unknown_free_count"], devices[-1]["unknown_free_count"]), (0, 0), how + ": unknown frees")
PY
done
