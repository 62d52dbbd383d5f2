# A second device, and a thread with no context: allocations are attributed to
# the right device, the failing calls return exactly what they return without
# gpuleak, and nothing crashes.
source "$ROOT/tests/lib.sh"
fc "$TPROG/driver_lifecycle" noctx >bare.txt
traced "$TPROG/driver_lifecycle" noctx >traced.txt
diff -u bare.txt traced.txt || fail "return codes differ"
grep -q "^thread alloc 201$" bare.txt || fail "expected CUDA_ERROR_INVALID_CONTEXT: $(cat bare.txt)"
"$REPORT" --json gpuleak.*.snap >r.json
check_json r.json <<'PY'
eq([(l["device"], l["bytes"], l["frames"][0]["function"]) for l in leaks], [(1, 3000, "leak_on_device1")], "leak on device 1")
eq(sum(x["unknown_free_count"] for x in d["devices"]), 1, "unknown frees")
PY
# The runtime on device 1.
GPULEAK_OUTPUT=rt.snap traced "$TPROG/runtime_kinds" device1 >/dev/null
"$REPORT" --json rt.snap >rt.json
check_json rt.json <<'PY'
eq([(l["device"], l["bytes"], l["frames"][0]["function"]) for l in leaks], [(1, 100000, "leak_device")], "runtime leak on device 1")
PY
