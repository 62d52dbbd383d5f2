# What a context teardown does not take with it (CUDA's cuCtxDestroy and
# cudaDeviceReset documentation): stream-ordered and cuMemCreate memory
# belong to no context, and cudaDeviceReset with the program's own context
# current destroys only runtime state.  The program frees what survived
# (fakecuda confirms each free with 0); gpuleak must agree: those records
# stay live until the frees, so no invalid free, no leak, and only the one
# allocation lost with its context is "freed only by a context teardown".
# The static runtime's cudaDeviceReset, seen only as the driver's
# cuDevicePrimaryCtxReset, keeps the same stream-ordered leak as the
# shared runtime's.
source "$ROOT/tests/lib.sh"
lost=$(site_line ctx_teardown.c 'LOST-SITE')

GPULEAK_OUTPUT=reset.snap traced "$TPROG/ctx_teardown" primary-reset >reset.out
expect_eq "$(tr '\n' ' ' <reset.out)" "OBS pool-free 0 OBS vmm-unmap 0 OBS vmm-release 0 OBS va-free 0 " "driver results"
"$REPORT" --json reset.snap >reset.json
check_json reset.json <<PY
eq(leaks, [], "no leaks: the pool and VMM memory survived the reset and were freed")
eq(d["invalid_frees"]["count"], 0, "their frees were valid")
eq([(g["bytes"], g["kind"], g["api"], g["teardown"], frame(g["frames"][0])) for g in d["teardown_leaks"]["groups"]],
   [(6000, "device", "cuMemAlloc_v2", "cuDevicePrimaryCtxReset_v2", "lost_with_context ctx_teardown.c:$lost")],
   "only the context's own memory went with it")
PY

GPULEAK_OUTPUT=destroy.snap traced "$TPROG/ctx_teardown" ctx-destroy >destroy.out
expect_eq "$(tr '\n' ' ' <destroy.out)" "OBS pool-free 0 " "pool allocation after cuCtxDestroy"
"$REPORT" --json destroy.snap >destroy.json
check_json destroy.json <<PY
eq(leaks, [], "no leaks")
eq(d["invalid_frees"]["count"], 0, "the pool free was valid")
eq([(g["bytes"], g["teardown"], frame(g["frames"][0])) for g in d["teardown_leaks"]["groups"]],
   [(5000, "cuCtxDestroy_v2", "lost_with_context ctx_teardown.c:$lost")], "cuCtxDestroy's group")
PY

GPULEAK_OUTPUT=own.snap traced "$TPROG/ctx_teardown" own-ctx-reset >own.out
expect_eq "$(tr '\n' ' ' <own.out)" "OBS reset 0 OBS rt-free 0 " "runtime memory after a reset with an own context current"
"$REPORT" --json own.snap >own.json
check_json own.json <<'PY'
eq((leaks, d["invalid_frees"]["count"], d["teardown_leaks"]["groups"]), ([], 0, []), "the reset destroyed nothing")
PY

# The primary context's last cuDevicePrimaryCtxRelease resets it; the one
# before (two references) does not: what was made before it is still freed.
GPULEAK_OUTPUT=release.snap traced "$TPROG/ctx_teardown" primary-release >release.out
expect_eq "$(tr '\n' ' ' <release.out)" "OBS kept-free 0 OBS pool-free 0 " "driver results around the releases"
"$REPORT" --json release.snap >release.json
check_json release.json <<PY
eq((leaks, d["invalid_frees"]["count"]), ([], 0), "no leaks, no invalid frees")
eq([(g["bytes"], g["teardown"], frame(g["frames"][0])) for g in d["teardown_leaks"]["groups"]],
   [(3000, "cuDevicePrimaryCtxRelease_v2", "lost_with_context ctx_teardown.c:$lost")], "the last release's group")
PY
"$REPORT" release.snap >release.txt
grep -qx 'No leaks: all 3 allocations were freed (1 only by a context teardown, below).' release.txt ||
    fail "no-leak line: $(grep -A1 '^LEAKS' release.txt)"

GPULEAK_OUTPUT=static.snap traced "$TPROG/runtime_kinds_static" reset
"$REPORT" --json static.snap >static.json
check_json static.json <<'PY'
eq([(l["kind"], l["bytes"], l["api"], l["frames"][0]["function"]) for l in leaks],
   [("pool", 300000, "cuMemAllocAsync", "leak_async")], "static runtime: the stream-ordered leak survives the reset")
eq([(g["kind"], g["bytes"], g["teardown"], g["frames"][0]["function"]) for g in d["teardown_leaks"]["groups"]],
   [("managed", 200000, "cuDevicePrimaryCtxReset_v2", "leak_managed"),
    ("device", 100000, "cuDevicePrimaryCtxReset_v2", "leak_device")], "static runtime: what the reset released")
PY
