# Every driver family through every way of getting driver entry points:
# linked exports, dlopen+dlsym, cuGetProcAddress_v2 by base name (as runtimes
# do; also with the per-thread-default-stream flag, which selects the _ptsz
# variants), and cudaGetDriverEntryPoint(ByVersion) -- also from a program
# built for the per-thread default stream, whose runtime calls are the _ptsz
# exports: the same exact result.
source "$ROOT/tests/lib.sh"
for how in direct dlsym procaddr procaddr-ptds entry entry-legacy entry-ptds entry-legacy-ptds; do
    prog=$TPROG/driver_paths
    mode=$how
    case $how in *-ptds) [ "$how" = procaddr-ptds ] || { prog=$TPROG/driver_paths_ptds; mode=${how%-ptds}; } ;; esac
    GPULEAK_OUTPUT=$how.snap traced "$prog" "$mode"
    "$REPORT" --json "$how.snap" >"$how.json"
    check_json "$how.json" <<PY
got = sorted((l["kind"], l["device"], l["api"], l["bytes"], l["count"], l["frames"][0]["function"]) for l in leaks)
ptsz = "_ptsz" if "$how".endswith("-ptds") else ""
want = sorted([
    ("device", 0, "cuMemAlloc_v2", 110000, 1, "leak_mem_alloc"),
    ("managed", 0, "cuMemAllocManaged", 120000, 1, "leak_managed"),
    ("host-pinned", -1, "cuMemAllocHost_v2", 130000, 1, "leak_host"),
    ("pool", 0, "cuMemAllocAsync" + ptsz, 140000, 1, "leak_async"),
    ("array", 0, "cuArrayCreate_v2", 8000, 1, "leak_array"),
    ("device", 0, "cuMemAllocPitch_v2", 1024 * 20, 1, "leak_pitch"),
    ("host-pinned", -1, "cuMemHostAlloc", 150000, 1, "leak_host_alloc"),
    ("host-registered", -1, "cuMemHostRegister_v2", 160000, 1, "leak_registered"),
    ("pool", 0, "cuMemAllocFromPoolAsync" + ptsz, 170000, 1, "leak_from_pool"),
    ("array", 0, "cuArray3DCreate_v2", 2000, 1, "leak_array3d"),
    ("array", 0, "cuMipmappedArrayCreate", (64 * 64 + 32 * 32 + 16 * 16) * 4, 1, "leak_mipmap"),
    ("virtual", 0, "cuMemCreate", 2 * 1048576, 1, "leak_vmm"),
])
eq(got, want, "$how: leaks")
eq((devices[0]["alloc_count"], devices[0]["free_count"]), (11, 2), "$how: device 0 counts")
eq((devices[-1]["alloc_count"], devices[-1]["free_count"]), (3, 0), "$how: host counts")
PY
done
