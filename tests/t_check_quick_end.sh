# gpuleak check judges a process that ends without exit() (issue 48, item
# 2): _exit and _Exit (C, a forked child, Python's os._exit) write the
# final snapshot (quick_exit too), so the gate sees the 8 MiB leak and fails with
# --error-exitcode; the exit_group system call and SIGKILL leave none, and
# check says so and fails too, never "0 of 0 processes".
source "$ROOT/tests/lib.sh"
export LD_LIBRARY_PATH=$FAKECUDA
[ -z "$GL_SAN" ] || export GPULEAK_LIB=$LIBGPULEAK
leak_line="leaked: 8,388,608 bytes (8.0 MiB) in 1 allocation from 1 stack"

# final_leak DIR FUNCTION: DIR's one snapshot with errors is a final exit
# snapshot whose one leak is 8 MiB from FUNCTION.
final_leak() {
    local snap
    snap=$(sed -n 's/^gpuleak: process [0-9]*: ERRORS: .*\[\(.*\)\]$/\1/p' err.txt)
    [ -f "$snap" ] || fail "$1: no snapshot with errors: $(cat err.txt)"
    "$REPORT" --json "$snap" >leak.json
    check_json leak.json <<PY
eq(d["snapshot"]["final"], True, "$1: final flag")
eq(d["snapshot"]["reason"], "exit", "$1: reason")
eq([(l["bytes"], l["count"], l["frames"][0]["function"]) for l in leaks], [(8388608, 1, "$2")], "$1: leaks")
PY
}

# _exit and _Exit in C: the leak, status 3.
for how in _exit _Exit; do
    rc=0; check_run --error-exitcode 3 --output "d$how" -- "$TPROG/quick_end" "$how" || rc=$?
    expect_eq "$rc" 3 "$how: check's status"
    cat >want.txt <<EOT
gpuleak: process P: ERRORS: $leak_line [d$how/gpuleak.run-T.P.0.snap]
gpuleak: snapshots in d$how
$(check_summary "1 of 1")
EOT
    check_verdicts | diff want.txt - || fail "$how: verdict lines"
    final_leak "d$how" leak_8mib
done

# quick_exit (issue 48 leftovers, item 1): glibc's quick_exit reaches its
# own _exit past the hook; the final snapshot is still written, after the
# program's at_quick_exit handler (its 1 MiB free is not a leak), and the
# handler's output and the status 7 are the program's.
rc=0; check_run --output dquick -- "$TPROG/quick_end" quick_exit || rc=$?
expect_eq "$rc" 7 "quick_exit: check's status without --error-exitcode"
expect_eq "$(cat out.txt)" "at_quick_exit ran" "quick_exit: the handler's output"
cat >want.txt <<EOT
gpuleak: process P: ERRORS: $leak_line [dquick/gpuleak.run-T.P.0.snap]
gpuleak: snapshots in dquick
$(check_summary "1 of 1")
EOT
check_verdicts | diff want.txt - || fail "quick_exit: verdict lines"
final_leak dquick leak_8mib
rc=0; check_run --error-exitcode 3 --output dquick3 -- "$TPROG/quick_end" quick_exit || rc=$?
expect_eq "$rc" 3 "quick_exit: check's status with --error-exitcode 3"

# A forked child that leaks and calls _exit: judged beside its clean parent.
rc=0; check_run --error-exitcode 3 --output dfork -- "$TPROG/quick_end" fork-_exit || rc=$?
expect_eq "$rc" 3 "fork-_exit: check's status"
expect_eq "$(check_verdicts | grep -c ': no errors: ')" 1 "fork-_exit: the clean parent"
expect_eq "$(check_verdicts | grep -c ": ERRORS: $leak_line ")" 1 "fork-_exit: the child's leak"
expect_eq "$(check_verdicts | tail -1)" "$(check_summary "1 of 2")" "fork-_exit: summary"
final_leak dfork leak_8mib

# Python's os._exit (a forked worker's way out), ctypes against fakecuda.
cat >osexit.py <<'PY'
import ctypes, os
cudart = ctypes.CDLL(os.environ["LD_LIBRARY_PATH"].split(":")[0] + "/libcudart.so.13")
p = ctypes.c_void_p()
assert cudart.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(8 << 20)) == 0
os._exit(0)
PY
rc=0; check_run --error-exitcode 3 --output dpy -- python3 osexit.py || rc=$?
expect_eq "$rc" 3 "os._exit: check's status"
expect_eq "$(check_verdicts | grep -c ": ERRORS: $leak_line ")" 1 "os._exit: the leak: $(cat err.txt)"
expect_eq "$(check_verdicts | tail -1)" "$(check_summary "1 of 1")" "os._exit: summary"
final_leak dpy "<module>"   # the Python line that allocated

# Past libc (exit_group) and SIGKILL: no snapshot can be written, and check
# says which process made CUDA calls yet left none: not checked, not passed.
for how in exit-group sigkill; do
    for ec in 3 ""; do
        rm -rf "d$how"
        rc=0; check_run ${ec:+--error-exitcode $ec} --output "d$how" -- "$TPROG/quick_end" "$how" || rc=$?
        expect_eq "$rc" "${ec:-2}" "$how: check's status with --error-exitcode '$ec'"
        cat >want.txt <<EOT
gpuleak: process P made CUDA calls, but it ended without a final snapshot: not checked, so not passed
gpuleak: snapshots in d$how
$(check_summary "1 of 1" "; no final snapshot")
EOT
        check_verdicts | diff want.txt - || fail "$how: verdict lines"
    done
done

# The same in the JSON document.
rc=0; "$LAUNCHER" check --error-exitcode 3 --output dsigkill --json=check.json -- "$TPROG/quick_end" sigkill 2>err.txt || rc=$?
expect_eq "$rc" 3 "sigkill --json: check's status"
json_assert check.json '' <<'PY'
eq([(p["verdict"], p["why"]) for p in d["processes"]], [("no final snapshot", "it ended without a final snapshot")], "processes")
eq((d["job"]["verdict"], d["job"]["processes"], d["job"]["with_errors"], d["job"]["no_final_snapshot"], d["job"]["exit_status"]), ("errors", 1, 1, 1, 3), "job")
PY

# A final snapshot that could not be written (the command removed check's
# directory first, with the run's claim file in it): check names that,
# not a leak-free pass.
rc=0; check_run --error-exitcode 3 --output gone -- sh -c 'rm -r gone && exec "$0" _exit' "$TPROG/quick_end" || rc=$?
expect_eq "$rc" 3 "unwritable final snapshot: check's status"
expect_eq "$(head -1 err.txt | sed 's/gpuleak\.run-[A-Za-z0-9]\{6\}\./gpuleak.run-T./')" \
    "gpuleak: GPULEAK_OUTPUT=$PWD/gone/gpuleak.run-T.%p.%n.snap: no directory $PWD/gone" "the library's line"
expect_eq "$(check_verdicts | sed 1d | head -1)" \
    "gpuleak: process P made CUDA calls, but its final snapshot could not be written (its gpuleak: warning says why): not checked, so not passed" \
    "unwritable final snapshot: the verdict line"
true
