# The clock test limits are measured on (tests/machine.sh, issue 48 item
# 15): a limit in reference seconds stretches while the machine is slower,
# so that a test judges the behaviour, not the machine.  The load average
# is read from a file of /proc/loadavg's format (MACHINE_LOADAVG), on 2
# CPUs, so that what is asserted does not depend on this machine's load:
# - to_milli and machine_slowdown: GPULEAK_TEST_SLOWDOWN x max(1, load /
#   CPUs), in thousandths;
# - run.sh: a test that takes 3 s passes with TEST_TIMEOUT=1 at load 40
#   (x20: the fixed 1 s of before ended it at any load); one that hangs is
#   ended, "timed out", at load 0; a test that exits 124 itself is "exit
#   124" (before: "timed out");
# - guard: a command past its limit is ended (status 124, its process
#   group gone, one line naming it); one within its limit keeps its status
#   and its stdin, and a SIGTERM to a guard started with & ends the
#   command;
# - wait_for names what it waited for; wait_until returns 1, also around a
#   command that waits itself.
source "$ROOT/tests/lib.sh"
export MACHINE_NCPU=2 MACHINE_LOADAVG=$PWD/loadavg GPULEAK_TEST_SLOWDOWN=1
unset VERBOSE STACK_CHECK_DIR # the run.sh this test runs prints only its lines
load() { echo "$1 $1 $1 1/100 1" >loadavg; }

to_milli 12.96; expect_eq "$REPLY" 12960 "to_milli 12.96"
to_milli 3; expect_eq "$REPLY" 3000 "to_milli 3"
to_milli .25; expect_eq "$REPLY" 250 "to_milli .25"
to_milli x1; expect_eq "$REPLY" 0 "to_milli x1"
load 0.50; machine_slowdown; expect_eq "$REPLY" 1000 "slowdown, idle"
load 9.00; machine_slowdown; expect_eq "$REPLY" 4500 "slowdown at load 9 on 2 CPUs"
GPULEAK_TEST_SLOWDOWN=1.5 machine_slowdown; expect_eq "$REPLY" 6750 "slowdown x1.5 at load 9"

# run.sh, on a test that takes 3 s of wall time.
printf 'sleep 3\necho done\n' >t_three.sh
printf 'exit 124\n' >t_own124.sh
printf 'sleep 60\n' >t_hang.sh
load 40.00
out=$("$ROOT/tests/run.sh" "$PWD/t_own124.sh" 2>&1 | sed -E 's/ +[0-9]+ ms/ N ms/') || true
expect_eq "$out" "FAIL t_own124 N ms (exit 124)
failed: t_own124
0 passed, 1 failed" "run.sh: a test's own status 124"
out=$(TEST_TIMEOUT=1 "$ROOT/tests/run.sh" "$PWD/t_three.sh" 2>&1 | sed -E 's/ +[0-9]+ ms/ N ms/') || true
expect_eq "$out" "PASS t_three N ms
1 passed, 0 failed" "run.sh at load 40, TEST_TIMEOUT=1"
load 0.00
out=$(TEST_TIMEOUT=1 "$ROOT/tests/run.sh" "$PWD/t_hang.sh" 2>&1) || true
echo "$out" | grep -Eqx 'FAIL t_hang +[0-9]+ ms \(timed out: 1 reference seconds, slowdown now x1\.0\)' ||
    fail "run.sh at load 0, TEST_TIMEOUT=1: $out"
echo "$out" | grep -Eq "^    guard: 'bash $PWD/t_hang.sh' ran 1 reference seconds \([0-9]+ s on the clock\): ended\$" ||
    fail "run.sh: the guard's line: $out"

# guard: ended past its limit, with its process group.
rc=0; guard 0.5 bash -c 'echo $$ >group.pid; sleep 60 & wait' 2>guard.err || rc=$?
expect_eq "$rc" 124 "guard past its limit: status"
grep -Eqx "guard: 'bash -c echo \\\$\\\$ >group.pid; sleep 60 & wait' ran 0.5 reference seconds \([0-9]+ s on the clock\): ended" guard.err ||
    fail "guard's line: $(cat guard.err)"
gone() { ! pgrep -g "$(cat group.pid)" >/dev/null; }
wait_for -t 10 "the guarded process group to end" gone
# Within its limit: the command's status, its stdin, nothing on stderr.
load 40.00
rc=0; out=$(echo input | guard 0.5 bash -c 'cat; sleep 1; exit 7' 2>guard.err) || rc=$?
expect_eq "$rc $out" "7 input" "guard within its limit (x20): status and stdin"
expect_eq "$(cat guard.err)" "" "guard within its limit: stderr"
# A SIGTERM to a guard started with & reaches the command.
guard 100 bash -c 'echo $$ >bg.pid; exec sleep 60' &
g=$!
wait_for "the guarded command to start" test -s bg.pid
kill "$g"
rc=0; wait "$g" || rc=$?
expect_eq "$rc" 143 "guard killed: status"
bg_gone() { ! kill -0 "$(cat bg.pid)" 2>/dev/null; }
wait_for -t 10 "the command of the killed guard to end" bg_gone

# wait_for and wait_until.
load 0.00
rc=0; (wait_for -t 0.3 "the impossible" false) 2>wf.err || rc=$?
expect_eq "$rc" 1 "wait_for: status"
grep -Eqx 'FAIL: timed out waiting for the impossible \(0\.3 reference seconds, [0-9]+ s on the clock\)' wf.err ||
    fail "wait_for's message: $(cat wf.err)"
wait_until -t 0.3 false && fail "wait_until false succeeded"
wait_until -t 5 true || fail "wait_until true: $REPLY"
# A command that waits itself (target_send does): the outer wait keeps a
# clock of its own and still ends (before, the inner wait restarted the
# one clock both used, and the outer never did).
waits_then_no() { wait_until -t 0.1 true; false; }
rc=0; wait_until -t 0.3 waits_then_no || rc=$?
expect_eq "$rc" 1 "a wait around a wait: status"
expect_eq "$_wait_depth" 0 "a wait around a wait: depth after"
echo ok
