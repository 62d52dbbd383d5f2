# Fatal signals that used to leave no snapshot (issue 26, items 4 and 13):
#  - SIGTERM to a thread waiting inside cudaFree (fakecuda's
#    FAKECUDA_FREE_DELAY_MS): the handler skipped every thread inside a hook;
#    it now skips only one that holds a lock of gpuleak's (gl_busy).  The
#    old code wrote it in 0 of 3 runs here.
#  - a stack overflow with an alternate signal stack: the handler lacked
#    SA_ONSTACK, so the kernel killed the process without running it.
# Either way the process dies of the same signal as without gpuleak.
source "$ROOT/tests/lib.sh"

status() { set +e; "$@" >/dev/null 2>&1; echo $?; set -e; }
final_leaks() { # SNAP EXPECTED-LEAKS (python list of (bytes, count, function))
    [ -f "$1" ] || fail "$1: no snapshot written"
    "$REPORT" --json "$1" >"$1.json"
    check_json "$1.json" <<PY
eq(d["snapshot"]["final"], True, "$1: final flag")
eq(d["snapshot"]["reason"], "fatal-signal", "$1: reason")
eq(sorted((l["bytes"], l["count"], l["frames"][0]["function"]) for l in leaks), $2, "$1: leaks")
PY
}

# The thread is inside cudaFree for 2 s; SIGTERM lands 0.2 s in.  The
# allocation being freed was taken out of the live table when the free began
# (as for any free in progress): the snapshot has the other one.
export FAKECUDA_FREE_DELAY_MS=2000
for i in 1 2 3; do
    expect_eq "$(status fc "$TPROG/process_end" term-in-free)" 143 "bare status"
    expect_eq "$(GPULEAK_OUTPUT=term$i.snap status traced "$TPROG/process_end" term-in-free)" 143 "traced status"
    final_leaks term$i.snap '[(1048576, 1, "leak")]'
done
unset FAKECUDA_FREE_DELAY_MS

# Unbounded recursion on an 8 MiB stack, with a 64 KiB alternate stack.
ulimit -s 8192
expect_eq "$(status fc "$TPROG/process_end" overflow)" 139 "bare status (SIGSEGV)"
expect_eq "$(GPULEAK_OUTPUT=overflow.snap status traced "$TPROG/process_end" overflow)" 139 "traced status"
final_leaks overflow.snap '[(1048576, 1, "leak")]'
