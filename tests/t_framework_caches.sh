# The built-in rules for other frameworks' caching allocators
# (tests/programs/fake_frameworks.cc, fake_module.c): TensorFlow's and XLA's
# BFC allocator, ONNX Runtime's BFC arena, RMM's pool and a statically linked
# NCCL's communicator by function name, CuPy's device and pinned pools,
# cuBLASLt's workspace and libnccl's communicator by file name.
# Each is "held by allocator caches" under its rule, with exact bytes; the
# plain function's 5 MiB is the only leak; --no-default-suppressions makes
# all of it leaks; --error-exitcode counts the leak only.
source "$ROOT/tests/lib.sh"
traced "$TPROG/fake_frameworks" "$TPROG/fw" || fail "run"
snap=$(only_snapshot)
"$REPORT" --json "$snap" >r.json
"$REPORT" "$snap" >r.txt
"$REPORT" --json --no-default-suppressions "$snap" >all.json
MiB=$((1 << 20))
check_json r.json <<PY
eq([(l["bytes"], l["kind"], frame(l["frames"][1])) for l in leaks],
   [(5 * $MiB, "device", "user_leak(unsigned long) fake_frameworks.cc:$(site_line fake_frameworks.cc "LEAK-SITE: user_leak")")],
   "the one leak")
c = d["allocator_caches"]
eq(sorted((g["rule"], g["bytes"], g["kind"]) for g in c["groups"]),
   sorted([("xla-bfc-allocator", 1 * $MiB, "device"), ("tensorflow-bfc-allocator", 2 * $MiB, "device"),
           ("onnxruntime-bfc-arena", 3 * $MiB, "device"), ("rmm-pool", 4 * $MiB, "device"),
           ("cupy-memory-pool", 6 * $MiB, "device"), ("cupy-pinned-memory-pool", 7 * $MiB, "host-pinned"),
           ("cublas-workspace", 8 * $MiB, "device"), ("nccl-communicator", 9 * $MiB, "device"),
           ("nccl-communicator-static", 10 * $MiB, "device")]), "caches by rule")
eq((c["bytes"], c["count"]), (50 * $MiB, 9), "cache totals")
PY
check_json all.json <<PY
eq(sorted(l["bytes"] // $MiB for l in leaks), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], "no default rules: all leaks")
eq(d["allocator_caches"]["groups"], [], "no caches")
PY
grep -qx '    xla-bfc-allocator: 1,048,576 bytes (1.0 MiB) in 1 allocation' r.txt || fail "rule total line"
grep -qx '3,145,728 bytes (3.0 MiB) in 1 allocation: device memory on device 0 (cudaMalloc), held by onnxruntime-bfc-arena' r.txt ||
    fail "group line"
"$REPORT" --list-default-suppressions >rules.txt
for rule in tensorflow-bfc-allocator xla-bfc-allocator onnxruntime-bfc-arena cupy-pinned-memory-pool \
            cupy-pinned-memory-pool-symbols nccl-communicator nccl-communicator-static; do
    grep -qx "   $rule" rules.txt || fail "$rule not listed"
done
# The listing is a valid suppression file: as --suppressions it matches the
# same memory (as suppressed, not cached).
"$REPORT" --json --no-default-suppressions --suppressions rules.txt "$snap" >user.json
check_json user.json <<PY
eq((d["suppressed"]["bytes"], [l["bytes"] for l in leaks]), (50 * $MiB, [5 * $MiB]), "the listing as a file")
PY
rc=0; "$REPORT" --error-exitcode 3 --min-bytes $((6 * MiB)) "$snap" >/dev/null || rc=$?
expect_eq "$rc" 0 "caches are not findings"
rc=0; "$REPORT" --error-exitcode 3 "$snap" >/dev/null || rc=$?
expect_eq "$rc" 3 "the leak is"
