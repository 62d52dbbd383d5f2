# Out-of-memory: the failing allocation is passed through unchanged, counted,
# and a snapshot of exactly what was live at that moment is written.
source "$ROOT/tests/lib.sh"
traced "$TPROG/scenarios" oom >out.txt
expect_eq "$(cat out.txt)" "oom 2" "return code of the failing cudaMalloc"
ls gpuleak.*.0.snap gpuleak.*.1.snap >/dev/null || fail "expected an OOM snapshot (.0) and a final one (.1): $(ls)"
"$REPORT" --json gpuleak.*.0.snap >oom.json
"$REPORT" --json gpuleak.*.1.snap >final.json
"$REPORT" gpuleak.*.0.snap >oom.txt
grep -qx 'This snapshot was taken at the last one: what was live then is listed below.' oom.txt || fail "OOM snapshot's note"
"$REPORT" gpuleak.*.1.snap | grep -q '^This snapshot was taken at' && fail "the note in the exit snapshot"
check_json oom.json <<'PY'
eq(d["snapshot"]["reason"], "oom", "reason")
eq(d["snapshot"]["final"], False, "final flag")
eq([(l["bytes"], l["count"], l["frames"][0]["function"]) for l in leaks], [(1048576, 1, "leak_runtime")], "live at OOM")
eq(devices[0]["failed_count"], 1, "failed allocations")
# The failing thread asked the driver: a 1 GiB device (fakecuda's default)
# with the 1 MiB leak and the primary context's own 4 MiB in use.
eq((devices[0]["mem_free"], devices[0]["mem_total"]), (1073741824 - 5242880, 1073741824), "driver's view")
# The history has the OOM event: requested size, driver's view, stack.
oom = [m for m in d["timeline"]["marks"] if m["type"] == "oom"]
eq([(m["requested_bytes"], m["mem_free"], m["mem_total"], m["frames"][0]["function"]) for m in oom],
   [(1 << 50, 1073741824 - 5242880, 1073741824, "main")], "OOM event")
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

# The OUT OF MEMORY section: each failed call with what it asked for, the
# driver's free and total memory then, the live allocations of this process
# at that moment, its kind (report/analysis/oomkind.h: this process's own
# 50 MiB leave no room, the context's 4 MiB elsewhere would not have made
# it), its stack, and what came after (a 64 MiB device, 4 MiB of
# it the primary context's own: 20 MiB short, then the same call tried again after freeing 30 MiB succeeds; then
# more than the device has, never allocated).
rm -f gpuleak.*.snap
FAKECUDA_MEM_BYTES=67108864 GPULEAK_OOM_SNAPSHOT=0 GPULEAK_OUTPUT=kinds.snap traced "$TPROG/scenarios" oom-kinds >kinds.out
expect_eq "$(tr '\n' ' ' <kinds.out)" "attempt 0 2 attempt 1 0 too-big 2 " "return codes"
"$REPORT" --json kinds.snap >kinds.json
retried=$(site_line scenarios.c 'OOM-SITE: retried')
big=$(site_line scenarios.c 'OOM-SITE: too-big')
check_json kinds.json <<PY
MiB = 1 << 20
o = d["out_of_memory"]
eq(o["failed_count"], 2, "failed allocations")
eq([(e["api"], e["kind"], e["device"], e["requested_bytes"], e["mem_free"], e["mem_total"], e["live_bytes"],
     e["unaccounted_bytes"], frame(e["frames"][0]), e["then"] and (e["then"]["seq"], e["then"]["same_stack"]))
    for e in o["events"]],
   [("cudaMalloc", "device", 0, 30 * MiB, 10 * MiB, 64 * MiB, 50 * MiB, 4 * MiB, "main scenarios.c:$retried", (5, True)),
    ("cudaMalloc", "device", 0, 128 * MiB, 10 * MiB, 64 * MiB, 50 * MiB, 4 * MiB, "main scenarios.c:$big", None)],
   "OOM events")
eq([(c["kind"], c["missing_bytes"], c["elsewhere_bytes"], c["own_bytes"]) for c in (e["classification"] for e in o["events"])],
   [("exceeded", 20 * MiB, 4 * MiB, 50 * MiB), ("exceeded", 118 * MiB, 4 * MiB, 50 * MiB)], "their kinds")
eq(o["torch"], None, "no PyTorch out of memory")
PY
"$REPORT" kinds.snap >kinds.txt
grep -qx '    out of memory:    2 failed allocations' kinds.txt || fail "summary line"
sed -n '/^OUT OF MEMORY$/,/^LEAKS$/p' kinds.txt | grep -v '^    #[1-9]' >section.txt
cat >want.txt <<EOT
OUT OF MEMORY
2 allocations failed for lack of memory: 2 on device 0.

cudaMalloc of 31,457,280 bytes (30.0 MiB) on device 0 failed at TIME (seq 3)
    the driver: 10,485,760 bytes (10.0 MiB) free of 67,108,864 bytes (64.0 MiB): 20.0 MiB short
    in use: 54.0 MiB = this process's live allocations 50.0 MiB + 4.0 MiB elsewhere
    (elsewhere: other processes, CUDA's own context, what memory pools keep in reserve,
    memory gpuleak could not see)
    kind: the request exceeded what was free: 31,457,280 bytes asked, 10,485,760 free; this process held 52,428,800 of the 56,623,104 in use, 4,194,304 elsewhere
    #0 main (scenarios.c:$retried) [scenarios]
    then the same size was allocated at TIME (seq 5), from the same stack: the request succeeded when tried again

cudaMalloc of 134,217,728 bytes (128.0 MiB) on device 0 failed at TIME (seq 6)
    the driver: 10,485,760 bytes (10.0 MiB) free of 67,108,864 bytes (64.0 MiB): more than the device has
    in use: 54.0 MiB = this process's live allocations 50.0 MiB + 4.0 MiB elsewhere
    (elsewhere: other processes, CUDA's own context, what memory pools keep in reserve,
    memory gpuleak could not see)
    kind: the request exceeded what was free: 134,217,728 bytes asked, 10,485,760 free; this process held 52,428,800 of the 56,623,104 in use, 4,194,304 elsewhere
    #0 main (scenarios.c:$big) [scenarios]
    nothing of that size was allocated after it (in the history)

LEAKS
EOT
sed 's/ at [0-9.]* s (seq/ at TIME (seq/' section.txt | diff -u want.txt - || fail "OUT OF MEMORY section"
# merge: each rank's failed allocations
snap_set kinds.snap kinds2.snap PROCESS 0 pid 1 # another process: merge keeps one snapshot per process
"$REPORT" --json merge kinds.snap kinds2.snap >merge.json
expect_eq "$(jget merge.json '[r["failed_count"] for r in d["ranks"]]')" "[2, 2]" "failed allocations per rank"
expect_eq "$("$REPORT" merge kinds.snap kinds2.snap | grep -c '^no rank (pid .*, 2 failed allocations$')" 2 "BY RANK lines (no rank variable was set)"
