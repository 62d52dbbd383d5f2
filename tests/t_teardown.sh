# Context teardown releases memory without frees: cuCtxDestroy and
# cuDevicePrimaryCtxReset drop that context's records; cudaDeviceReset drops
# the device's, except stream-ordered allocations (which CUDA documents
# survive it).  What was dropped had never been freed by the program: the
# report lists it as "freed only by a context teardown" (compute-sanitizer's
# leak check reports exactly these), with the allocation's stack and the
# call that released it, and --error-exitcode counts it.
source "$ROOT/tests/lib.sh"
GPULEAK_OUTPUT=ctx.snap traced "$TPROG/driver_lifecycle" ctx
"$REPORT" --json ctx.snap >ctx.json
line=$(site_line driver_lifecycle.c 'LEAK-SITE: leak_survivor')
check_json ctx.json <<PY
eq([(l["bytes"], l["count"], frame(l["frames"][0])) for l in leaks],
   [(7000, 1, "leak_survivor driver_lifecycle.c:$line")], "only the survivor leaks")
eq(devices[0]["live_bytes"], 7000, "live bytes")
PY
GPULEAK_OUTPUT=reset.snap traced "$TPROG/runtime_kinds" reset >/dev/null
"$REPORT" --json reset.snap >reset.json
check_json reset.json <<'PY'
eq([(l["kind"], l["bytes"], l["frames"][0]["function"]) for l in leaks], [("pool", 300000, "leak_async")], "after cudaDeviceReset")
PY

destroyed=$(site_line driver_lifecycle.c 'gone with cuCtxDestroy')
reset=$(site_line driver_lifecycle.c 'gone with the reset')
check_json ctx.json <<PY
t = d["teardown_leaks"]
eq([(g["bytes"], g["count"], g["kind"], g["api"], g["teardown"], g["rule"], frame(g["frames"][0]), frame(g["frames"][1]))
    for g in t["groups"]],
   [(6000, 1, "device", "cuMemAlloc_v2", "cuDevicePrimaryCtxReset_v2", None, "alloc_in_ctx driver_lifecycle.c:40",
     "ctx_lifecycle driver_lifecycle.c:$reset"),
    (5000, 1, "device", "cuMemAlloc_v2", "cuCtxDestroy_v2", None, "alloc_in_ctx driver_lifecycle.c:40",
     "ctx_lifecycle driver_lifecycle.c:$destroyed")], "teardown groups")
eq((t["bytes"], t["count"], t["leaked_bytes"], t["leaked_count"]), (11000, 2, 11000, 2), "teardown totals")
PY
"$REPORT" ctx.snap >ctx.txt
grep -qx '    until teardown:   11,000 bytes (10.7 KiB) in 2 allocations from 2 stacks' ctx.txt || fail "summary line"
grep -qx 'FREED ONLY BY A CONTEXT TEARDOWN' ctx.txt || fail "section"
grep -A1 -x '5,000 bytes (4.9 KiB) in 1 allocation: device memory on device 0 (cuMemAlloc_v2), released by cuCtxDestroy_v2 at [0-9.]* s' ctx.txt |
    grep -qx '    #0 alloc_in_ctx (driver_lifecycle.c:40) \[driver_lifecycle\]' || fail "destroyed group"
check_json reset.json <<'PY'
t = d["teardown_leaks"]
eq([(g["bytes"], g["kind"], g["api"], g["teardown"], g["frames"][0]["function"]) for g in t["groups"]],
   [(200000, "managed", "cudaMallocManaged", "cudaDeviceReset", "leak_managed"),
    (100000, "device", "cudaMalloc", "cudaDeviceReset", "leak_device")], "what cudaDeviceReset released")
PY
# --error-exitcode: with the survivor suppressed, the teardown leaks decide;
# a rule matching them (here --suppressions; allocator caches alike) makes
# them no finding, and so does --min-bytes above them.
printf '{\n   survivor\n   ...\n   fun:leak_survivor\n}\n' >survivor.supp
printf '{\n   in-ctx\n   ...\n   fun:alloc_in_ctx\n}\n' >inctx.supp
cat survivor.supp inctx.supp >both.supp
rc=0; "$REPORT" --suppressions survivor.supp --error-exitcode 5 ctx.snap >/dev/null || rc=$?
expect_eq "$rc" 5 "teardown leaks are findings"
rc=0; "$REPORT" --suppressions survivor.supp --error-exitcode 5 --min-bytes 6001 ctx.snap >/dev/null || rc=$?
expect_eq "$rc" 0 "under the floor"
rc=0; "$REPORT" --json --suppressions both.supp --error-exitcode 5 ctx.snap >both.json || rc=$?
expect_eq "$rc" 0 "matched by a rule"
check_json both.json <<'PY'
t = d["teardown_leaks"]
eq(([g["rule"] for g in t["groups"]], t["leaked_bytes"], t["bytes"]), (["in-ctx", "in-ctx"], 0, 11000), "rules on teardown groups")
PY
# A hostile entry: a stack no STACK record defines.
snap_patch ctx.snap bad.snap 15 24 I 999999   # entry 0's stack id
rc=0; "$REPORT" bad.snap >/dev/null 2>bad.err || rc=$?
expect_eq "$rc" 2 "undefined stack refused"
expect_eq "$(wc -l <bad.err)" 1 "one error line"
grep -q 'teardown entry 0 refers to undefined stack id 999999' bad.err || fail "message: $(cat bad.err)"
