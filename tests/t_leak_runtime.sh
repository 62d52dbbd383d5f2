# cudaMalloc leaks: two 1 MiB allocations from leak_runtime() are reported as
# one group with exact bytes, count, kind, API and file:line; the balanced
# work around them leaves nothing behind.
source "$ROOT/tests/lib.sh"
traced "$TPROG/scenarios" leak-runtime
snap=$(only_snapshot)
"$REPORT" --json "$snap" >r.json
line=$(site_line scenarios.c 'LEAK-SITE: leak_runtime')
check_json r.json <<PY
eq(len(leaks), 1, "leak groups")
l = leaks[0]
eq((l["bytes"], l["count"], l["kind"], l["device"], l["api"]), (2097152, 2, "device", 0, "cudaMalloc"), "leak")
eq(frame(l["frames"][0]), "leak_runtime scenarios.c:$line", "top frame")
eq(l["frames"][1]["function"], "main", "second frame")
eq(d["leak_summary"]["bytes"], 2097152, "summary bytes")
eq(d["leak_summary"]["count"], 2, "summary count")
eq(devices[0]["live_bytes"], 2097152, "live bytes")
eq(devices[0]["alloc_count"], 2 + 20, "allocations seen")
eq(devices[0]["free_count"], 20, "frees seen")
PY
# The text report names the function, file:line and the exact total.
"$REPORT" "$snap" >r.txt
grep -q "leak_runtime (.*scenarios.c:$line)" r.txt || fail "text report lacks leak_runtime frame: $(cat r.txt)"
grep -q "total: 2,097,152 bytes (2.0 MiB) in 2 allocations" r.txt || fail "text report lacks total: $(cat r.txt)"

# GPULEAK_DEPTH=0 records no stack: the same totals in one group with no
# frame, and every output copes with stacks that have none.  (The undefined
# behaviour fuzz_report found on such stacks, NULL given to memcpy/memcmp,
# is invisible to GCC's UBSan; clang's, in the fuzz phase, replays it from
# tests/fuzz/regressions/report.)
mkdir d0 && (cd d0 && GPULEAK_DEPTH=0 traced "$TPROG/scenarios" leak-runtime >/dev/null)
snap0=$(ls d0/gpuleak.*.snap)
"$REPORT" --json "$snap0" >d0.json
check_json d0.json <<'PY'
eq([(l["bytes"], l["count"], l["api"], l["frames"]) for l in leaks], [(2097152, 2, "cudaMalloc", [])], "depth 0 leaks")
eq(devices[0]["alloc_count"], 22, "depth 0 allocations")
PY
"$REPORT" "$snap0" >d0.txt
grep -q "(no stack captured)" d0.txt || fail "depth 0 text: $(cat d0.txt)"
expect_eq "$("$REPORT" --folded leaks "$snap0")" "device_0:device;[no stack] 2097152" "depth 0 folded"
"$REPORT" --html d0.html "$snap0" || fail "depth 0 --html"
"$REPORT" --torch-snapshot d0.pickle "$snap0" || fail "depth 0 --torch-snapshot"
"$REPORT" diff "$snap0" "$snap0" >d0.diff || fail "depth 0 diff"
