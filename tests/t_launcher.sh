# The launcher: `gpuleak run` tracks a program (options become the library's
# environment), `gpuleak snapshot PID` takes a snapshot of a running one and
# prints its name, `gpuleak report` runs the reporter; errors are clear.
source "$ROOT/tests/lib.sh"
export LD_LIBRARY_PATH=$FAKECUDA
# not `--help | grep -q`: grep leaving after its match can kill the launcher
# with SIGPIPE mid-help (9 KB), a failure under pipefail
"$LAUNCHER" --help >help.txt || fail "--help: exit $?"
grep -q "gpuleak run" help.txt || fail "--help"
set +e
"$LAUNCHER" run 2>err.txt; rc=$?
set -e
expect_eq "$rc" 2 "run without a command"
grep -q "no command" err.txt || fail "unclear error: $(cat err.txt)"

"$LAUNCHER" run --output 'L-%p.snap' --depth 3 -- "$TPROG/scenarios" leak-runtime
snap=$(ls L-*.snap)
"$LAUNCHER" report --json "$snap" >r.json
check_json r.json <<'PY'
eq(len(leaks[0]["frames"]), 3, "frames kept with --depth 3")
eq(leaks[0]["frames"][0]["function"], "leak_runtime", "top frame")
PY

# snapshot PID against a running program.
mkdir snaps
"$LAUNCHER" run --output snaps/ -- "$TPROG/churn" 2 10 4000 >ready.txt &
pid=$!
wait_for -t 5 "churn to be ready" grep -q ready ready.txt
name=$("$LAUNCHER" snapshot "$pid")
[ -f "$name" ] || fail "snapshot printed '$name', which is not a file"
"$REPORT" --json "$name" >s.json
check_json s.json <<'PY'
eq(d["snapshot"]["reason"], "signal", "reason")
eq(d["leak_summary"]["count"], 3, "live allocations mid-run")
PY
kill "$pid"; wait "$pid" 2>/dev/null || true

set +e
"$LAUNCHER" snapshot 999999999 2>err.txt; rc=$?
set -e
expect_eq "$rc" 2 "snapshot of a missing pid"
grep -q "no process" err.txt || fail "unclear error: $(cat err.txt)"
sleep 30 & other=$!
set +e
"$LAUNCHER" snapshot "$other" 2>err.txt; rc=$?
set -e
kill "$other"
expect_eq "$rc" 2 "snapshot of a process without gpuleak"
grep -q "does not have libgpuleak.so" err.txt || fail "unclear error: $(cat err.txt)"
