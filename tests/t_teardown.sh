# Context teardown releases memory without frees: cuCtxDestroy and
# cuDevicePrimaryCtxReset drop that context's records; cudaDeviceReset drops
# the device's, except stream-ordered allocations (which CUDA documents
# survive it).
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
