# tools/gpuleak_memory.py, the torch.cuda.memory look-alike: with the
# library preloaded it records history, annotates and dumps a snapshot whose
# live set is exact; without it, it warns once and does nothing.
source "$ROOT/tests/lib.sh"
export GPULEAK_PYTHON_DIR=$ROOT/tools FAKECUDA_RT=$FAKECUDA/libcudart.so.13
traced python3 "$ROOT/tests/programs/py_alloc.py" >out.txt 2>err.txt || fail "python failed: $(cat err.txt)"
expect_eq "$(cat out.txt)" "available True
history True
dumped mid.snap" "helper results"
"$REPORT" --json mid.snap >mid.json
check_json mid.json <<'PY'
eq(d["snapshot"]["reason"], "request", "reason")
eq(sum(l["bytes"] for l in leaks), 3 * 4096, "live bytes")
eq(sum(l["count"] for l in leaks), 3, "live count")
# The history was restarted by _record_memory_history: it holds exactly the
# three allocations, both annotations, and this snapshot.
t = d["timeline"]
eq((t["allocs"], t["frees"]), (3, 0), "history events")
eq([(m["type"], m["label"]) for m in t["marks"]],
   [("annotation", "phase one"), ("annotation", "phase one (end)"), ("snapshot", None)], "marks")
eq(t["devices"][0]["bytes"], [4096, 8192, 12288], "usage series")
PY
# Without the library: one warning, no snapshot, nothing else changes.
python3 "$ROOT/tests/programs/py_alloc.py" >out2.txt 2>err2.txt || fail "python failed without gpuleak"
expect_eq "$(cat out2.txt)" "available False
history None
dumped None" "helper results without gpuleak"
expect_eq "$(grep -c 'libgpuleak.so is not preloaded' err2.txt)" 1 "warnings"

# _dump_snapshot() without a name returns the file it wrote (absolute), also
# when GPULEAK_OUTPUT names a directory and after the program's chdir (it
# returned None, its failure value, for both).
mkdir snaps elsewhere
GPULEAK_OUTPUT=snaps ELSEWHERE=$PWD/elsewhere traced python3 "$ROOT/tests/programs/py_dump.py" >out3.txt 2>err3.txt ||
    fail "python failed: $(cat err3.txt)"
pid=$(ls snaps | sed -n 's/^gpuleak\.\([0-9]*\)\.0\.snap$/\1/p')
[ -n "$pid" ] || fail "snapshots: $(ls snaps)"
expect_eq "$(cat out3.txt)" "first $PWD/snaps/gpuleak.$pid.0.snap True
after chdir $PWD/snaps/gpuleak.$pid.1.snap True" "_dump_snapshot() results"
expect_eq "$(ls elsewhere)" "" "files after chdir"
