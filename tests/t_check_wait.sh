# gpuleak check waits for the processes it started that outlive the command
# (issue 34): those whose environment sends their snapshots to check's
# directory and preloads gpuleak.  A leak in a background process is caught;
# one still running after --wait fails the gate, naming it; the ordinary case
# waits for nothing.
source "$ROOT/tests/lib.sh"
export LD_LIBRARY_PATH=$FAKECUDA
[ -z "$GL_SAN" ] || export GPULEAK_LIB=$LIBGPULEAK
check() { "$LAUNCHER" check "$@" >out.txt 2>err.txt; }
# summary lines of err.txt with pids made P
tail_p() { tail -"$1" err.txt | sed 's/process [0-9]*/process P/; s/gpuleak\.run-[A-Za-z0-9]\{6\}\.[0-9]*\./gpuleak.run-T.P./'; }

# The leak is in a process the command leaves running: check waits for it,
# reports it and fails the gate.
rc=0; check --error-exitcode 9 --output bg -- bash -c '(sleep 0.3; exec "$0" leak-runtime) & exit 0' "$TPROG/scenarios" || rc=$?
expect_eq "$rc" 9 "background leak: status ($(tail -3 err.txt))"
expect_eq "$(tail_p 3)" "gpuleak: process P: ERRORS: leaked: 2,097,152 bytes (2.0 MiB) in 2 allocations from 1 stack [bg/gpuleak.run-T.P.0.snap]
gpuleak: snapshots in bg
gpuleak: ERROR SUMMARY: 1 of 1 processes with errors (leaks, memory still mapped, refused frees, teardown releases)" \
    "background leak: verdict"

# A process still running after --wait: the gate fails, saying which; the
# directory stays for the snapshot it writes later.
rc=0; check --error-exitcode 9 --wait 0.5 --output late -- bash -c 'sleep 30 & echo $! >late.pid' || rc=$?
late=$(cat late.pid)
kill "$late" 2>/dev/null || true
expect_eq "$rc" 9 "still running: status ($(tail -3 err.txt))"
expect_eq "$(cat err.txt)" "gpuleak: process $late (sleep) still running after 0.5 s (--wait): its final snapshot was not checked
gpuleak: snapshots in late
gpuleak: ERROR SUMMARY: 1 of 1 processes with errors (leaks, memory still mapped, refused frees, teardown releases; still running)" \
    "still running: message"
[ -d late ] || fail "still running: the directory was removed"
# Without --error-exitcode: the same lines, and status 2 (check could not
# check), not the command's 0.
rc=0; check --wait 0 -- bash -c 'sleep 30 & echo $! >late.pid' || rc=$?
kill "$(cat late.pid)" 2>/dev/null || true
expect_eq "$rc" 2 "still running, no --error-exitcode: status"
expect_eq "$(grep -c 'still running after 0 s (--wait)' err.txt)" 1 "still running, no --error-exitcode: message"

# The ordinary case: nothing left running, no wait.
start=$(date +%s%N)
rc=0; check --error-exitcode 9 --output plain -- "$TPROG/scenarios" balanced || rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
expect_eq "$rc" 0 "ordinary: status"
expect_eq "$(tail -1 err.txt)" \
    "gpuleak: ERROR SUMMARY: 0 of 1 processes with errors (leaks, memory still mapped, refused frees, teardown releases)" "ordinary: summary"
[ "$ms" -lt 5000 ] || fail "ordinary: took $ms ms"
# --wait is checked before the command runs.
rc=0; check --wait 1x -- touch ran || rc=$?
expect_eq "$rc" 2 "--wait 1x"
expect_eq "$(cat err.txt)" "gpuleak: check: --wait 1x: expected seconds, 0 to 86400 (e.g. 60, 0.5)" "--wait 1x message"
[ ! -e ran ] || fail "the command ran with a bad --wait"
