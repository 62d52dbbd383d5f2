# The driver families through every way of getting driver entry points:
# linked exports, dlopen+dlsym, cuGetProcAddress_v2 by base name (as runtimes
# do), and cudaGetDriverEntryPoint(ByVersion): same exact result each time.
source "$ROOT/tests/lib.sh"
for how in direct dlsym procaddr entry entry-legacy; do
    GPULEAK_OUTPUT=$how.snap traced "$TPROG/driver_paths" "$how"
    "$REPORT" --json "$how.snap" >"$how.json"
    check_json "$how.json" <<PY
got = sorted((l["kind"], l["device"], l["api"], l["bytes"], l["count"], l["frames"][0]["function"]) for l in leaks)
want = sorted([
    ("device", 0, "cuMemAlloc_v2", 110000, 1, "leak_mem_alloc"),
    ("managed", 0, "cuMemAllocManaged", 120000, 1, "leak_managed"),
    ("host-pinned", -1, "cuMemAllocHost_v2", 130000, 1, "leak_host"),
    ("pool", 0, "cuMemAllocAsync", 140000, 1, "leak_async"),
    ("array", 0, "cuArrayCreate_v2", 8000, 1, "leak_array"),
])
eq(got, want, "$how: leaks")
eq((devices[0]["alloc_count"], devices[0]["free_count"]), (6, 2), "$how: device 0 counts")
PY
done
