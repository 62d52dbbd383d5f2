# Two different CUDA runtimes in one process, each loaded RTLD_LOCAL by its
# own plugin: every call goes to the runtime its caller was linked with, as
# without gpuleak (each runtime keeps its own last error), and both plugins'
# allocations are tracked.
source "$ROOT/tests/lib.sh"
fc "$TPROG/multi_host" "$TPROG/plugin13.so" "$TPROG/plugin12.so" >bare.txt
expect_eq "$(cat bare.txt)" "a alloc: 0
b oom: 2
a last error: 0
b last error: 2
b alloc: 0" "results without gpuleak"
GPULEAK_OOM_SNAPSHOT=0 traced "$TPROG/multi_host" "$TPROG/plugin13.so" "$TPROG/plugin12.so" >traced.txt
diff -u bare.txt traced.txt || fail "results differ under the interposer"
"$REPORT" --json gpuleak.*.snap >r.json
check_json r.json <<'PY'
eq(sorted((l["bytes"], l["count"], l["frames"][0]["function"]) for l in leaks),
   [(1000, 1, "plugin_alloc"), (2000, 1, "plugin_alloc")], "leaks")
eq(devices[0]["failed_count"], 1, "out-of-memory failures")
PY
