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
# status is its own, and the detach snapshot is the process's own, with the
# loop's calls in its call counts, its device counters and its history.
# (Before: a child forked between the detach's request and the writer's
# next tick inherited the request, and its writer -- started at once by
# the child's first CUDA call, its live view due at once -- detached the
# child and wrote the child's snapshot, tables emptied by fork, into the
# launcher's status file first: 1 round in ~8 printed a snapshot with call
# counts but no device counters and no history, and most rounds left
# children's detach snapshots next to the parent's.  The children fork
# every 200 pairs here, so that many are forked in that window.)  Then a
# process that exits while the attach runs keeps its status.
source "$ROOT/tests/lib.sh"
skip_under_san "gdb calls into the process; the sanitizers' runtimes are not made for that"
command -v gdb >/dev/null || skip_if true "no gdb"
export LD_LIBRARY_PATH=$FAKECUDA
T=$TPROG/attach_busy

for round in 1 2 3; do
    mkdir "r$round" && cd "r$round"
    "$T" 60 4 200 >out.txt 2>err.txt & # until ./stop exists
    pid=$!
    wait_for -t 10 "round $round: ready" grep -q '^ready$' out.txt
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
    # The detach's snapshot is the only one, the process's own: no child
    # acted on its parent's detach.
    expect_eq "$(ls -- *.snap)" "$(basename "$snap")" "round $round: the snapshots written"
    "$REPORT" --json "$snap" >snap.json
    expect_eq "$(jget snap.json 'd["snapshot"]["pid"]')" "$pid" "round $round: the snapshot's process"
    # The hooks were in place: the loop's calls were counted at its line,
    # and each one on the device and in the history as well.
    expect_eq "$(jget snap.json '(sorted({(s["frames"][0]["function"], s["frames"][0]["line"]) for s in d["allocation_calls"]["sites"]}), d["allocation_calls"]["calls"] > 0)')" \
        "([('pair', 38)], True)" "round $round: the loop's calls, counted while attached"
    expect_eq "$(jget snap.json '[(v["device"], v["alloc_count"] - d["allocation_calls"]["calls"], v["free_count"] - d["allocation_calls"]["frees"], v["failed_count"], v["unknown_free_count"]) for v in d["devices"]]')" \
        "[[0, 0, 0, 0, 0]]" "round $round: device 0 counted every call the report counted"
    expect_eq "$(jget snap.json '(d["timeline"]["present"], d["timeline"]["allocs"] > 0, d["timeline"]["frees"] > 0)')" \
        "(True, True, True)" "round $round: the loop's calls in the history"
    cd ..
done

# A process that exits while its attach runs: its status is its own, and
# the attach either happened or failed in one line.
mkdir gone && cd gone
"$T" 0.3 5 >out.txt 2>err.txt &
pid=$!
wait_for -t 10 "gone: ready" grep -q '^ready$' out.txt
rc=0; "$LAUNCHER" attach --output "$PWD/%p.%n.snap" "$pid" 2>attach.err || rc=$?
st=0; wait "$pid" || st=$?
expect_eq "$st" 5 "exit during the attach: the program's exit status"
[ "$rc" = 0 ] || { [ "$rc" = 2 ] && [ "$(wc -l <attach.err)" = 1 ]; } ||
    fail "exit during the attach: status $rc, $(cat attach.err)"
echo ok
