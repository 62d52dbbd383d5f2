# cuMemCreate on a host location (CU_MEM_LOCATION_TYPE_HOST, HOST_NUMA) is
# the machine's pinned RAM: counted as host-pinned memory on the host (device
# -1), not on the current context's GPU, with the cuMemCreate line; device
# memory made the same way stays the device's.  The driver answers the same
# with gpuleak.
source "$ROOT/tests/lib.sh"
host=$(site_line vmm_host.c 'HOST-SITE')
numa=$(site_line vmm_host.c 'NUMA-SITE')

fc "$TPROG/vmm_host" probe >plain.out
GPULEAK_OUTPUT=final.snap traced "$TPROG/vmm_host" probe >traced.out
expect_eq "$(tr '\n' ' ' <plain.out)" "REFUSED numa-current 1 REFUSED host-shareable 1 " "fakecuda's answers"
cmp -s plain.out traced.out || fail "driver answers differ under gpuleak: $(diff plain.out traced.out)"

"$REPORT" --json final.snap >final.json
check_json final.json <<PY
eq([(l["kind"], l["api"], l["bytes"], l["device"], frame(l["frames"][0])) for l in leaks],
   [("host-pinned", "cuMemCreate", 4 << 20, -1, "leak_numa vmm_host.c:$numa"),
    ("host-pinned", "cuMemCreate", 2 << 20, -1, "leak_host vmm_host.c:$host")],
   "host-located handles never released: host memory")
eq(d["invalid_frees"]["count"], 0, "every release matched")
eq(sorted((x["device"], x["alloc_count"], x["free_count"], x["live_bytes"], x["peak_bytes"]) for x in d["devices"]),
   [(-1, 3, 1, 6 << 20, 8 << 20), (0, 1, 1, 0, 2 << 20)],
   "host and device 0 counters")
PY
"$REPORT" final.snap >final.txt
grep -qx "    host-pinned memory on host: 6,291,456 bytes (6.0 MiB) in 2 allocations" final.txt ||
    fail "text report: $(sed -n '/^LEAK SUMMARY/,/^ALLOCATION/p' final.txt)"
