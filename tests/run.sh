#!/usr/bin/env bash
# Runs every test script tests/t_*.sh (or those named on the command line)
# against the build in $BUILD (default build/).  Each script is one test: exit
# 0 is a pass, anything else a failure; its output is shown only on failure
# (or with VERBOSE=1).  Exit 77 is a skip (tests/lib.sh skip_if), shown with
# its reason and counted.  The last line is always "N passed, N failed", with
# ", N skipped" appended when any test was skipped.
# STACK_CHECK_DIR=DIR: every test runs with GPULEAK_STACK_CHECK=DIR/NAME.log
# (the stack cache's check mode; scripts/check.sh's plain phase sums them).
# A test that failed only because LeakSanitizer's own tracer died ("has
# encountered a fatal error", no leak report) runs once more: that is a known
# intermittent fault of the sanitizer runtime, not of gpuleak
# (google/sanitizers#1353), and a rerun is the remedy its maintainers give.
# The line says so; a second failure of any kind is a failure.
#
# Timeouts judge the test, not the machine (tests/machine.sh).  Every limit
# on time is given in reference seconds, seconds on the reference machine
# (the project's 2-core CI machine, idle); the clock they are measured on
# runs slower while the machine is slower: a wall-clock second counts
# 1 / (GPULEAK_TEST_SLOWDOWN x max(1, load average / CPUs)).
# - GPULEAK_TEST_SLOWDOWN: this machine against the reference one, idle;
#   measured here once (the CPU time of a fixed loop) unless set, and
#   exported.  Set it by hand under an emulator or valgrind.
# - A test is ended after TEST_TIMEOUT reference seconds (default 120),
#   measured on that clock and re-read every half second, so that a test
#   running beside a second `make check` gets twice the wall time, and one
#   that hangs on an idle machine is ended after 120 s; a wall-clock cap of
#   10 x TEST_TIMEOUT x GPULEAK_TEST_SLOWDOWN ends it whatever the load.
# - Inside a test the same clock serves every wait: tests/lib.sh's wait_for
#   (up to N reference seconds for a condition), guard (a command's limit,
#   instead of timeout(1)), target_start and target_send.  A fixed `sleep`
#   is only a pause between looks, never a limit.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
export ROOT BUILD
TIMEOUT=${TEST_TIMEOUT:-120}
source "$ROOT/tests/machine.sh"
export MACHINE_NCPU
if [ -z "${GPULEAK_TEST_SLOWDOWN:-}" ]; then
    calibrate_slowdown
    GPULEAK_TEST_SLOWDOWN=$REPLY
fi
[[ $GPULEAK_TEST_SLOWDOWN =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
    { echo "GPULEAK_TEST_SLOWDOWN=$GPULEAK_TEST_SLOWDOWN: not a decimal number"; exit 2; }
export GPULEAK_TEST_SLOWDOWN
if [ "${VERBOSE:-0}" = 1 ]; then
    machine_slowdown; milli_str "$REPLY"
    echo "GPULEAK_TEST_SLOWDOWN=$GPULEAK_TEST_SLOWDOWN, slowdown now x$REPLY ($(cut -d' ' -f1 "$MACHINE_LOADAVG") on $MACHINE_NCPU CPUs)"
fi

tests=()
if [ $# -gt 0 ]; then
    for t in "$@"; do tests+=("$(cd "$(dirname "$t")" && pwd)/$(basename "$t")"); done
else
    tests=("$ROOT"/tests/t_*.sh)
fi
run_one() {  # run_one TEST WORK: the test in WORK, its output in WORK/.log
    (cd "$2" && TEST_WORK=$2 guard "$TIMEOUT" bash "$1") >"$2/.log" 2>&1
}
lsan_tracer_died() {  # lsan_tracer_died LOG: LSan's tracer failed, no leak found
    grep -q 'LeakSanitizer has encountered a fatal error' "$1" &&
        ! grep -q 'ERROR: LeakSanitizer: detected memory leaks' "$1"
}
pass=0; fail=0; skip=0; failed=()
for t in "${tests[@]}"; do
    name=$(basename "$t" .sh)
    work=$(mktemp -d "${TMPDIR:-/tmp}/gpuleak-test.XXXXXX")
    start=$(date +%s%N)
    if [ -n "${STACK_CHECK_DIR:-}" ]; then export GPULEAK_STACK_CHECK=$STACK_CHECK_DIR/$name.log; fi
    run_one "$t" "$work"; rc=$?
    note=
    if [ $rc -ne 0 ] && [ $rc -ne 77 ] && lsan_tracer_died "$work/.log"; then
        rm -rf "$work"; work=$(mktemp -d "${TMPDIR:-/tmp}/gpuleak-test.XXXXXX")
        run_one "$t" "$work"; rc=$?
        note=" (run twice: LeakSanitizer's tracer died on the first run)"
    fi
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    if [ $rc -eq 0 ]; then
        pass=$((pass + 1)); printf 'PASS %-40s %6d ms%s\n' "$name" "$ms" "$note"
        [ "${VERBOSE:-0}" = 1 ] && sed 's/^/    /' "$work/.log"
        rm -rf "$work"
    elif [ $rc -eq 77 ]; then
        skip=$((skip + 1))
        printf 'SKIP %-40s %6d ms (%s)\n' "$name" "$ms" "$(grep -m1 '^SKIP: ' "$work/.log" | cut -c7-)"
        rm -rf "$work"
    else
        fail=$((fail + 1)); failed+=("$name")
        machine_slowdown; milli_str "$REPLY"
        why="exit $rc"
        grep -qF "guard: 'bash $t' ran" "$work/.log" && why="timed out: ${TIMEOUT} reference seconds, slowdown now x$REPLY"
        printf 'FAIL %-40s %6d ms (%s)\n' "$name" "$ms" "$why"
        tail -n 60 "$work/.log" | sed 's/^/    /'
        rm -rf "$work"
    fi
done
[ $fail -gt 0 ] && echo "failed: ${failed[*]}"
if [ $skip -gt 0 ]; then echo "$pass passed, $fail failed, $skip skipped"; else echo "$pass passed, $fail failed"; fi
[ $fail -eq 0 ]
