# gpuleak attach and detach of a busy process (issue 39, "never harm the
# job"): its main thread allocates and frees in a tight loop, forks CUDA
# children that exit 3, and gets SIGUSR2 every 5 ms throughout.  gdb stops
# that thread anywhere (inside fakecuda holding its lock, inside a hook of
# gpuleak's), so the call it makes only starts gpuleak's own thread, which
# does the work after gdb has let the program go on (before: the attach's
# driver query waited for fakecuda's lock that the stopped thread held, and
# the process hung for good; a SIGUSR2 during the call stopped gdb there
# and the attach failed).  Three rounds: attach and detach succeed, the
# program's handler ran, no child misexited, no CUDA call failed, its exit
# status is its own, and the detach snapshot counted the loop's calls.  Then a
# process that exits while the attach runs keeps its status.
source "$ROOT/tests/lib.sh"
skip_under_san "gdb calls into the process; the sanitizers' runtimes are not made for that"
command -v gdb >/dev/null || skip_if true "no gdb"
export LD_LIBRARY_PATH=$FAKECUDA
T=$TPROG/attach_busy

for round in 1 2 3; do
    mkdir "r$round" && cd "r$round"
    "$T" 60 4 >out.txt 2>err.txt & # until ./stop exists
    pid=$!
    for _ in $(seq 200); do grep -q '^ready$' out.txt && break; sleep 0.05; done
    (for _ in $(seq 400); do kill -USR2 "$pid" 2>/dev/null || break; sleep 0.005; done) &
    storm=$!
    sleep 0.2
    rc=0; "$LAUNCHER" attach --output "$PWD/%p.%n.snap" "$pid" 2>attach.err || rc=$?
    expect_eq "$rc" 0 "round $round: attach ($(cat attach.err))"
    sleep 0.3
    rc=0; "$LAUNCHER" detach "$pid" >detach.out 2>detach.err || rc=$?
    expect_eq "$rc" 0 "round $round: detach ($(cat detach.err))"
    touch stop
    st=0; wait "$pid" || st=$?
    kill "$storm" 2>/dev/null || true
    wait "$storm" 2>/dev/null || true
    expect_eq "$st" 4 "round $round: the program's exit status"
    expect_eq "$(cat out.txt)" "ready
usr2 some forks some bad 0 failed 0" "round $round: the program's own account"
    snap=$(cat detach.out)
    [ -f "$snap" ] || fail "round $round: no detach snapshot ($snap)"
    "$REPORT" --json "$snap" >snap.json
    # The hooks were in place: the loop's calls were counted at its line.
    # (Its device counters and history are sometimes absent from this
    # snapshot, 1 round in ~8: an open defect, docs/attach.md.)
    expect_eq "$(jget snap.json '(sorted({(s["frames"][0]["function"], s["frames"][0]["line"]) for s in d["allocation_calls"]["sites"]}), d["allocation_calls"]["calls"] > 0)')" \
        "([('pair', 38)], True)" "round $round: the loop's calls, counted while attached"
    cd ..
done

# A process that exits while its attach runs: its status is its own, and
# the attach either happened or failed in one line.
mkdir gone && cd gone
"$T" 0.3 5 >out.txt 2>err.txt &
pid=$!
for _ in $(seq 200); do grep -q '^ready$' out.txt && break; sleep 0.05; done
rc=0; "$LAUNCHER" attach --output "$PWD/%p.%n.snap" "$pid" 2>attach.err || rc=$?
st=0; wait "$pid" || st=$?
expect_eq "$st" 5 "exit during the attach: the program's exit status"
[ "$rc" = 0 ] || { [ "$rc" = 2 ] && [ "$(wc -l <attach.err)" = 1 ]; } ||
    fail "exit during the attach: status $rc, $(cat attach.err)"
echo ok
