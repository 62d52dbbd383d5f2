# The PyTorch query never swallows the program's interrupts, and waits for
# an answer it has started (issue 34, defects 1 and 5; docs/pytorch.md).
# tests/programs/torch_interrupt.py takes one snapshot of one tensor on the
# stand-in torch; its _snapshot() signals its own process, so that Python
# runs the program's handler inside gpuleak's query, on both paths: the
# pending call on Python's main thread (SIGUSR1 snapshot) and the request
# (gpuleak_memory._dump_snapshot) on the calling thread.  KeyboardInterrupt
# and SystemExit are not Exceptions: they must reach the program exactly as
# without gpuleak (exit 130 for SIGINT, 143 for a handler that calls
# sys.exit(143)); a program that catches them goes on, and its next
# snapshot is answered (nothing left stuck).
source "$ROOT/tests/lib.sh"
torch_standin_setup
export GPULEAK_OUTPUT=sig%n.snap
prog=$ROOT/tests/programs/torch_interrupt.py
KiB=1024; MiB=$((1024 * 1024))

# run NAME HOW SIGNAL [catch]: runs the program in directory NAME with the
# stand-in's _snapshot() sending SIGNAL (or nothing: none); prints its status.
run() {
    local name=$1 how=$2 sig=$3
    mkdir "$name"
    local rc=0
    (cd "$name" && TORCH_STANDIN_SNAPSHOT_SIGNAL=${sig#none} traced python3 "$prog" "$how" "${@:4}" \
        >out.txt 2>err.txt) || rc=$?
    echo "$rc"
}
# torch_of SNAP: the TORCH record as "status tensors allocated segments reserved".
torch_of() {
    "$REPORT" --json "$1" >"$1.json" || fail "report $1: exit $?"
    python3 -c '
import json, sys
t = json.load(open(sys.argv[1])).get("torch")
print("none" if t is None else " ".join(str(t.get(k)) for k in
      ("status", "tensor_count", "allocated_bytes", "segment_count", "reserved_bytes")))' "$1.json"
}
answered="answered 1 $((256 * KiB)) 1 $((2 * MiB))"

# Without a signal: as before, the view is in the snapshot, exit 0.
expect_eq "$(run p_none pending none)" 0 "pending, no signal: exit status"
expect_eq "$(cat p_none/out.txt)" "ran on" "pending, no signal: output"
expect_eq "$(torch_of p_none/sig0.snap)" "$answered" "pending, no signal: the view"
expect_eq "$(run r_none request none)" 0 "request, no signal: exit status"
expect_eq "$(torch_of r_none/req0.snap)" "$answered" "request, no signal: the view"

# Ctrl-C and the SIGTERM handler's exit, inside the query, on each path.
expect_eq "$(run p_int pending INT)" 130 "pending, SIGINT: exit status"
expect_eq "$(cat p_int/out.txt)" "" "pending, SIGINT: the program stopped"
grep -q '^KeyboardInterrupt' p_int/err.txt || fail "pending, SIGINT: no KeyboardInterrupt: $(cat p_int/err.txt)"
expect_eq "$(run p_term pending TERM)" 143 "pending, SIGTERM: exit status"
expect_eq "$(cat p_term/out.txt)" "" "pending, SIGTERM: the program stopped"
expect_eq "$(run r_int request INT)" 130 "request, SIGINT: exit status"
expect_eq "$(cat r_int/out.txt)" "" "request, SIGINT: the program stopped"
grep -q '^KeyboardInterrupt' r_int/err.txt || fail "request, SIGINT: no KeyboardInterrupt: $(cat r_int/err.txt)"
expect_eq "$(run r_term request TERM)" 143 "request, SIGTERM: exit status"
# From a second thread: Python runs the handler on the main thread, which
# was joining it.
expect_eq "$(run t_int thread INT)" 130 "thread, SIGINT: exit status"

# Caught by the program: it goes on; the interrupted query's snapshot says
# _snapshot() failed, and the next one is answered.
expect_eq "$(run p_catch pending INT catch)" 0 "pending, SIGINT caught: exit status"
expect_eq "$(cat p_catch/out.txt)" "caught KeyboardInterrupt 
ran on" "pending, SIGINT caught: output"
expect_eq "$(torch_of p_catch/sig0.snap)" "failed 0 0 0 0" "pending, SIGINT caught: the interrupted view"
expect_eq "$(torch_of p_catch/sig1.snap)" "$answered" "pending, SIGINT caught: the next view"
expect_eq "$(run r_catch request TERM catch)" 0 "request, SIGTERM caught: exit status"
expect_eq "$(cat r_catch/out.txt)" "caught SystemExit 143
ran on" "request, SIGTERM caught: output"
expect_eq "$(torch_of r_catch/req0.snap)" "failed 0 0 0 0" "request, SIGTERM caught: the interrupted view"
expect_eq "$(torch_of r_catch/req1.snap)" "$answered" "request, SIGTERM caught: the next view"
# An exception raised in the asking thread by another (a timeout library's
# PyThreadState_SetAsyncExc) reaches that thread, not the main one.
expect_eq "$(run t_async thread ASYNC catch)" 0 "thread, async exception: exit status"
expect_eq "$(cat t_async/out.txt)" "caught Stop 
ran on" "thread, async exception: output"
expect_eq "$(torch_of t_async/req1.snap)" "$answered" "thread, async exception: the next view"

# A slow answer (3 s, more than the 2 s gpuleak waits for the main thread to
# START answering) is waited for once the main thread has started it.
mkdir slow
(cd slow && TORCH_STANDIN_SNAPSHOT_DELAY=3 traced python3 "$prog" pending >out.txt 2>err.txt) ||
    fail "slow answer: exit $?"
cat slow/err.txt
expect_eq "$(torch_of slow/sig0.snap)" "$answered" "slow answer: the view"
exit 0
