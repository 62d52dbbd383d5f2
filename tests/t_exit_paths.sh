# Every way a process ends: exit() from another thread, SIGTERM, SIGINT,
# SIGSEGV and abort() leave a final snapshot with the live leak and the exit
# status the program has without gpuleak; SIGKILL leaves no partial file under
# a snapshot name.
source "$ROOT/tests/lib.sh"

status() { set +e; "$@" >/dev/null 2>&1; echo $?; set -e; }
one_final_leak() {
    "$REPORT" --json "$1" >"$1.json"
    check_json "$1.json" <<PY
eq(d["snapshot"]["final"], True, "$1: final flag")
eq(d["snapshot"]["reason"], "$2", "$1: reason")
eq([(l["bytes"], l["count"], l["frames"][0]["function"]) for l in leaks], [(1048576, 1, "leak_runtime")], "$1: leaks")
PY
}

# exit() from a thread: status 7 both ways, snapshot at exit.
expect_eq "$(status fc "$TPROG/scenarios" exit-thread)" 7 "bare exit status"
expect_eq "$(GPULEAK_OUTPUT=thread.snap status traced "$TPROG/scenarios" exit-thread)" 7 "traced exit status"
one_final_leak thread.snap exit

# Faults and abort(): the same signal ends the process either way.
for sig in segv abort; do
    bare=$(status fc "$TPROG/scenarios" $sig)
    traced_rc=$(GPULEAK_OUTPUT=$sig.snap status traced "$TPROG/scenarios" $sig)
    expect_eq "$traced_rc" "$bare" "$sig exit status"
    one_final_leak $sig.snap fatal-signal
done

# Signals from outside, to a program waiting in pause().  (A background job
# of a non-interactive shell starts with SIGINT ignored: restore the default
# first, as an interactive shell would have it.)
dfl_int=(python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])')
for sig in TERM INT KILL; do
    "${dfl_int[@]}" env GPULEAK_OUTPUT=$sig.snap LD_PRELOAD="$LIBGPULEAK" LD_LIBRARY_PATH="$FAKECUDA" \
        "$TPROG/scenarios" wait >ready.$sig &
    pid=$!
    wait_for -t 4 "the program to be ready (SIG$sig)" grep -qs ready ready.$sig
    kill -$sig $pid
    set +e; wait $pid; rc=$?; set -e
    expect_eq "$rc" $((128 + $(kill -l $sig))) "exit status after SIG$sig"
done
one_final_leak TERM.snap fatal-signal
one_final_leak INT.snap fatal-signal
[ -e KILL.snap ] && fail "SIGKILL cannot be caught, yet a snapshot appeared"
ls | grep -q '\.snap\..*part' && fail "partial file under a snapshot name"
true
