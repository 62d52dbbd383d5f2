# Context teardown releases memory without frees: cuCtxDestroy,
# cuDevicePrimaryCtxReset and cudaDeviceReset drop that context's records,
# except stream-ordered and virtual memory, which CUDA documents belong to
# no context (t_ctx_teardown).  What was dropped had never been freed by the program: the
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

inctx=$(site_line driver_lifecycle.c 'IN-CTX-SITE')
destroyed=$(site_line driver_lifecycle.c 'gone with cuCtxDestroy')
reset=$(site_line driver_lifecycle.c 'gone with the reset')
check_json ctx.json <<PY
t = d["teardown_leaks"]
eq([(g["bytes"], g["count"], g["kind"], g["api"], g["teardown"], g["rule"], frame(g["frames"][0]), frame(g["frames"][1]))
    for g in t["groups"]],
   [(6000, 1, "device", "cuMemAlloc_v2", "cuDevicePrimaryCtxReset_v2", None, "alloc_in_ctx driver_lifecycle.c:$inctx",
     "ctx_lifecycle driver_lifecycle.c:$reset"),
    (5000, 1, "device", "cuMemAlloc_v2", "cuCtxDestroy_v2", None, "alloc_in_ctx driver_lifecycle.c:$inctx",
     "ctx_lifecycle driver_lifecycle.c:$destroyed")], "teardown groups")
eq((t["bytes"], t["count"], t["leaked_bytes"], t["leaked_count"]), (11000, 2, 11000, 2), "teardown totals")
PY
"$REPORT" ctx.snap >ctx.txt
grep -qx '    until teardown:   11,000 bytes (10.7 KiB) in 2 allocations from 2 stacks' ctx.txt || fail "summary line"
grep -qx 'FREED ONLY BY A CONTEXT TEARDOWN' ctx.txt || fail "section"
grep -A1 -x '5,000 bytes (4.9 KiB) in 1 allocation: device memory on device 0 (cuMemAlloc_v2), released by cuCtxDestroy_v2 at [0-9.]* s' ctx.txt |
    grep -qx "    #0 alloc_in_ctx (driver_lifecycle.c:$inctx) \\[driver_lifecycle\\]" || fail "destroyed group"
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
snap_set ctx.snap bad.snap TEARDOWN 0 stack_id 999999
rc=0; "$REPORT" bad.snap >/dev/null 2>bad.err || rc=$?
expect_eq "$rc" 2 "undefined stack refused"
expect_eq "$(wc -l <bad.err)" 1 "one error line"
grep -q 'teardown entry 0 refers to undefined stack id 999999' bad.err || fail "message: $(cat bad.err)"

# diff and merge: teardown leaks matched by site across snapshots.  A
# snapshot between the two teardowns has the cuCtxDestroy group only; the
# last adds the reset's; a second run (rank 3) is merged with the first
# (which set no rank: after rank 3, merge's rank order).
GPULEAK_OUTPUT=end.snap traced "$TPROG/driver_lifecycle" ctx mid.snap
RANK=3 GPULEAK_OUTPUT=rank3.snap traced "$TPROG/driver_lifecycle" ctx
"$REPORT" --json diff mid.snap end.snap >diff.json
check_multi_json diff.json <<PY
t = d["teardown_leaks"]
eq((t["bytes"], t["count"], t["leaked_bytes"]), ([5000, 11000], [1, 2], [5000, 11000]), "diff totals")
eq([(g["teardown"], g["bytes"], g["count"], g["change"], g["present"], g["rule"], frame(g["frames"][1])) for g in t["groups"]],
   [("cuDevicePrimaryCtxReset_v2", [0, 6000], [0, 1], 6000, 1, None, "ctx_lifecycle driver_lifecycle.c:$reset"),
    ("cuCtxDestroy_v2", [5000, 5000], [1, 1], 0, 2, None, "ctx_lifecycle driver_lifecycle.c:$destroyed")],
   "diff groups: the grown one first")
PY
"$REPORT" diff mid.snap end.snap >diff.txt
grep -qx 'bytes: 5,000 -> 11,000, allocations: 1 -> 2' diff.txt || fail "diff totals line"
grep -A3 -x '+6,000 bytes (5.9 KiB) in 1 allocation: device memory on device 0 (cuMemAlloc_v2), released by cuDevicePrimaryCtxReset_v2' diff.txt |
    tr '\n' '|' | grep -qF "    bytes:       0 -> 6,000|    allocations: 0 -> 1|    #0 alloc_in_ctx (driver_lifecycle.c:$inctx) [driver_lifecycle]|" ||
    fail "diff group: $(sed -n '/TEARDOWN/,$p' diff.txt)"
grep -qx '(1 stack with the same teardown leaks in every snapshot)' diff.txt || fail "unchanged group"
# --error-exitcode on a diff: a teardown leak that grew is a finding, one
# that did not grow or is held by a rule is not (the survivor, which is
# live growth, is suppressed throughout).
rc=0; "$REPORT" --suppressions survivor.supp --error-exitcode 5 diff mid.snap end.snap >/dev/null || rc=$?
expect_eq "$rc" 5 "diff: grown teardown leak"
rc=0; "$REPORT" --suppressions both.supp --error-exitcode 5 diff mid.snap end.snap >/dev/null || rc=$?
expect_eq "$rc" 0 "diff: grown but matched by a rule"
rc=0; "$REPORT" --suppressions survivor.supp --error-exitcode 5 diff end.snap end.snap >/dev/null || rc=$?
expect_eq "$rc" 0 "diff: no growth"

"$REPORT" --json merge mid.snap rank3.snap >merge.json
check_multi_json merge.json <<PY
t = d["teardown_leaks"]
eq((t["bytes"], t["count"], t["leaked_bytes"]), ([11000, 5000], [2, 1], [11000, 5000]), "merge totals")
eq([(g["teardown"], g["bytes"], g["total_bytes"], g["total_count"], g["present"]) for g in t["groups"]],
   [("cuCtxDestroy_v2", [5000, 5000], 10000, 2, 2), ("cuDevicePrimaryCtxReset_v2", [6000, 0], 6000, 1, 1)],
   "merge groups: most bytes first")
eq([(r["rank"], r["teardown_bytes"], r["teardown_leaked_bytes"]) for r in d["ranks"]], [(3, 11000, 11000), (None, 5000, 5000)],
   "per rank")
PY
"$REPORT" merge mid.snap rank3.snap >merge.txt
grep -q '^rank 3 (pid [0-9]*, host .*rank3.snap): .*, until teardown 10.7 KiB$' merge.txt || fail "BY RANK: $(grep ^rank merge.txt)"
grep -qx '16,000 bytes (15.6 KiB) in 3 allocations from 2 stacks on 2 of 2 ranks' merge.txt || fail "merge totals line"
grep -A1 -x '6,000 bytes (5.9 KiB) in 1 allocation: device memory on device 0 (cuMemAlloc_v2), released by cuDevicePrimaryCtxReset_v2' merge.txt |
    grep -qx '    on 1 of 2 ranks: rank 3 (5.9 KiB)' || fail "merge group's ranks"
# merge: a teardown leak on any rank is a finding; a floor above every
# group's bytes on each rank makes none (the survivor is suppressed).
rc=0; "$REPORT" --suppressions survivor.supp --error-exitcode 5 merge mid.snap rank3.snap >/dev/null || rc=$?
expect_eq "$rc" 5 "merge: teardown leak on a rank"
rc=0; "$REPORT" --suppressions survivor.supp --error-exitcode 5 --min-bytes 6001 merge mid.snap rank3.snap >/dev/null || rc=$?
expect_eq "$rc" 0 "merge: every group under the floor"
