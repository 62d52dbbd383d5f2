# Out-of-memory: the failing allocation is passed through unchanged, counted,
# and a snapshot of exactly what was live at that moment is written.
source "$ROOT/tests/lib.sh"
traced "$TPROG/scenarios" oom >out.txt
expect_eq "$(cat out.txt)" "oom 2" "return code of the failing cudaMalloc"
ls gpuleak.*.0.snap gpuleak.*.1.snap >/dev/null || fail "expected an OOM snapshot (.0) and a final one (.1): $(ls)"
"$REPORT" --json gpuleak.*.0.snap >oom.json
"$REPORT" --json gpuleak.*.1.snap >final.json
check_json oom.json <<'PY'
eq(d["snapshot"]["reason"], "oom", "reason")
eq(d["snapshot"]["final"], False, "final flag")
eq([(l["bytes"], l["count"], l["frames"][0]["function"]) for l in leaks], [(1048576, 1, "leak_runtime")], "live at OOM")
eq(devices[0]["failed_count"], 1, "failed allocations")
# The failing thread asked the driver: a 1 GiB device (fakecuda's default)
# with the 1 MiB leak in use.
eq((devices[0]["mem_free"], devices[0]["mem_total"]), (1073741824 - 1048576, 1073741824), "driver's view")
# The history has the OOM event: requested size, driver's view, stack.
oom = [m for m in d["timeline"]["marks"] if m["type"] == "oom"]
eq([(m["requested_bytes"], m["mem_free"], m["mem_total"], m["frames"][0]["function"]) for m in oom],
   [(1 << 50, 1073741824 - 1048576, 1073741824, "main")], "OOM event")
PY
check_json final.json <<'PY'
eq(d["snapshot"]["final"], True, "final flag")
eq(d["snapshot"]["reason"], "exit", "reason")
eq([(l["bytes"], l["count"]) for l in leaks], [(1048576, 1)], "leaks at exit")
PY
# GPULEAK_OOM_SNAPSHOT=0 turns it off: only the final snapshot.
rm -f gpuleak.*.snap
GPULEAK_OOM_SNAPSHOT=0 traced "$TPROG/scenarios" oom >/dev/null
expect_eq "$(ls gpuleak.*.snap | wc -l)" 1 "snapshots with OOM snapshots off"
