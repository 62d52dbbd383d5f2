# Attaching and detaching 50 times while threads allocate (docs/attach.md,
# issue 39 "never harm the job"): 4 threads loop cudaMalloc/cudaFree
# without pause while gpuleak attaches and detaches 50 times in a row.
# - Every attach and every detach succeeds, and each detach names its own
#   snapshot: 50 distinct files, and no other snapshot is written.
# - No thread stalls: after each cycle the program is asked whether every
#   thread has made a pair since the last time it was asked (it waits for
#   that, 30 s at most, and answers "ok progress" or "stalled N").
# - No CUDA call fails and none is lost: the driver's used memory after the
#   threads end is what it was before they started (each cudaFree reached
#   it), and the program's output and exit status are those of a run
#   without gpuleak.
# - Each detach snapshot counted calls, each one once: device 0's
#   allocations are the report's allocation calls, and as many as its frees
#   plus its live allocations (a pair the detach cut in two stays live);
#   no free is a bad or an unknown free (memory allocated before an attach
#   and freed during it is "made before attach"), no call failed.
# - After the last detach no thread or handler of gpuleak is left.
# The program runs at nice 19, so that on a loaded 2-core machine its four
# spinning threads do not starve gdb and the launcher (a cycle took 4-6 s
# instead of 0.6-0.8 s); GPULEAK_MAX_ENTRIES, read from its environment at
# the attach, keeps each snapshot's history (and the report's time) small.
source "$ROOT/tests/lib.sh"
need_gdb_attach
export LD_LIBRARY_PATH=$FAKECUDA
T=$TPROG/attach_threads
CYCLES=50

run() { GPULEAK_MAX_ENTRIES=64 target_start "$1" 200 nice -n 19 "$T" 4; }
finish() { target_finish; }

run plain
for _ in $(seq $CYCLES); do echo progress >&3; done
finish
plain_rc=$rc

mkdir snaps
run attached
for i in $(seq $CYCLES); do
    "$LAUNCHER" attach --output snaps/ "$pid" 2>>attach.err || fail "attach $i: $(tail -1 attach.err)"
    "$LAUNCHER" detach "$pid" >>detached.txt 2>>detach.err || fail "detach $i: $(tail -1 detach.err)"
    echo progress >&3 # answered while the next cycle runs
done
# A thread of gpuleak's stopped by the detach leaves the task list when it
# has run to its end, at nice 19 a moment later: looked for up to 5 s.
gpuleak_threads_gone() {
    local t
    for t in /proc/"$pid"/task/*; do
        case $(cat "$t/comm" 2>/dev/null) in gpuleak-writer|gpuleak-fatal) return 1 ;; esac
    done
}
wait_until -t 5 gpuleak_threads_gone ||
    fail "gpuleak's threads outlived the detach: $(cat /proc/"$pid"/task/*/comm 2>/dev/null | grep gpuleak | paste -sd' ')"
sigcgt=$(awk '/^SigCgt:/ {print $2}' "/proc/$pid/status")
expect_eq "$(( (16#$sigcgt >> 9) & 1 ))" 0 "SIGUSR1 caught after the detach"
finish
expect_eq "$rc" "$plain_rc" "exit status"
expect_eq "$rc" 3 "the program's own exit status"
expect_eq "$(cat attached.out)" "$(printf 'ready\n'; for _ in $(seq $CYCLES); do echo 'ok progress'; done
    printf 'failures 0\nidle threads 0\ndriver memory as before')" "the program's output"
cmp -s plain.out attached.out || fail "output differs: $(diff plain.out attached.out)"

expect_eq "$(sort -u detached.txt | wc -l)" "$CYCLES" "distinct detach snapshots"
expect_eq "$(cd snaps && ls | sort)" "$(sed 's|.*/||' detached.txt | sort)" "the snapshots written"
i=0
while read -r snap; do
    i=$((i + 1))
    "$REPORT" --json "$snap" >"d$i.json" || fail "detach snapshot $i unreadable"
done <detached.txt
# One line per snapshot that breaks a rule: none.
expect_eq "$(python3 - "$pid" d*.json <<'PY'
import json, sys
pid = int(sys.argv[1])
for name in sys.argv[2:]:
    d = json.load(open(name))
    s, calls, dev = d["snapshot"], d["allocation_calls"], d["devices"]
    got = (s["reason"], s["pid"], len(dev), d["invalid_frees"]["count"], calls["calls"] > 0)
    if got != ("detach", pid, 1, 0, True):
        print(name, got)
        continue
    v = dev[0]
    got = (v["alloc_count"] - calls["calls"], v["alloc_count"] - v["free_count"] - v["live_count"],
           v["unknown_free_count"], v["failed_count"])
    if got != (0, 0, 0, 0):
        print(name, got)
PY
)" "" "the detach snapshots' counts"
echo ok
