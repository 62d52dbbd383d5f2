# Interposer robustness: CUDA called before main (a constructor); from a
# frame without unwind information (libunwind must stop safely); from a
# thread cancelled in the middle of allocating and snapshotting, or on its
# first allocation (no lock left held: the process still snapshots and
# exits), or with its cancellation pending through every kind of call
# (no cancellation point inside the hooks); from threads still running
# while exit() runs the destructors; through a runtime that is dlclose'd and
# loaded again elsewhere (the hooks must follow it); with malloc failing
# inside libgpuleak.  No crash, no deadlock, the program's own status and
# output, and the leak reported where there is a snapshot.
source "$ROOT/tests/lib.sh"

hrun() {  # hrun DIR CMD...: status 3, stdout "hostile DIR done" unless DIR is dlclose_host
    local dir=$1; shift; mkdir -p "$dir"; local rc
    set +e
    (cd "$dir" && guard 60 env "$@" 2>&1 >out | cat >err; exit "${PIPESTATUS[0]}"); rc=$?
    set -e
    expect_eq "$rc" 3 "$dir: exit status ($(tail -3 "$dir/err"))"
    expect_eq "$(grep -vc '^gpuleak: ' "$dir/err" || true)" 0 "$dir: foreign stderr: $(cat "$dir/err")"
}
one_leak() {  # one_leak DIR FUNCTION
    local files=("$1"/gpuleak.*.snap)
    [ -e "${files[0]}" ] || fail "$1: no snapshot"
    local last; last=$(ls -t "$1"/gpuleak.*.snap | sed -n 1p)
    "$REPORT" --json "$last" >"$1/r.json"
    check_json "$1/r.json" <<PY
sites = sorted({l["frames"][0]["function"] for l in leaks})
# exit-race: allocations the churning threads had in flight at exit are live too
eq("$2" in sites and set(sites) <= {"$2", "churn_thread"}, True, "$1: leak sites %r" % sites)
PY
}
H=$TPROG/hostile
P=(LD_PRELOAD="$LIBGPULEAK" LD_LIBRARY_PATH="$FAKECUDA")

hrun ctor "${P[@]}" HOSTILE_CTOR=1 "$H" ctor;  one_leak ctor leak
hrun nocfi "${P[@]}" "$H" nocfi
one_leak nocfi leak
"$REPORT" --json nocfi/gpuleak.*.snap | python3 -c '
import json, sys
d = json.load(sys.stdin)
n = sum(l["count"] for l in d["leaks"])
sys.exit(0 if n == 3 else "FAIL: nocfi: %d leaked allocations, expected 3" % n)'
for i in 1 2 3; do
    hrun cancel.$i "${P[@]}" "$H" cancel
    one_leak cancel.$i leak
done
# The first tracked allocation, by a thread with a cancellation pending: it
# waits for gpuleak's writer (driver_view.c), and that wait must not be where
# the thread dies (it held a lock there: exit hung; seen under ASan).
hrun cancel-first "${P[@]}" "$H" cancel-first
expect_eq "$(head -1 cancel-first/out)" "thread cancelled" "cancel-first: the thread was cancelled after"
one_leak cancel-first leak
# A thread with its cancellation pending before its first CUDA call makes
# every kind of call gpuleak records (tests/programs/hostile.c): gpuleak's
# own cancellation points (libunwind's walk, the stack check's line, the
# out-of-memory snapshot; activation is the constructor's) run with cancellation
# disabled, the rest of the hooks reach none, so it dies only at its own
# pthread_testcancel, with its leak, its failure and its bad free kept.  In
# full mode (with the stack cache, and without it: libunwind walks every
# time), and in light mode.
for run in full light nocache; do
    env=(GPULEAK_MODE=full)
    [ $run = light ] && env=(GPULEAK_MODE=light)
    [ $run = nocache ] && env=(GPULEAK_STACK_CACHE=off GPULEAK_STACK_CHECK="$PWD/check.txt")
    hrun cancel-pending.$run "${P[@]}" "${env[@]}" "$H" cancel-pending
    expect_eq "$(head -1 cancel-pending.$run/out)" "survived 1, thread cancelled" "cancel-pending.$run: the thread"
    last=$(ls -t cancel-pending.$run/gpuleak.*.snap | sed -n 1p)
    "$REPORT" --json "$last" >cancel-pending.$run/all.json
    # (light mode's stacks are sampled: the leak's bytes, not its line)
    check_json cancel-pending.$run/all.json <<PY
eq(sum(x["live_bytes"] for x in d["devices"]), 1 << 20, "$run: the leak")
eq(sum(x["failed_count"] for x in d["devices"]), 1, "$run: the failure for lack of memory")
eq(sum(x["unknown_free_count"] for x in d["devices"]), 1, "$run: the bad free")
PY
done
for i in 1 2 3 4 5; do
    hrun exit-race.$i "${P[@]}" "$H" exit-race
    one_leak exit-race.$i leak
done
hrun dlclose "${P[@]}" "$TPROG/dlclose_host"
expect_eq "$(cat dlclose/out | tr '\n' ' ')" "round 0 ok round 1 ok round 2 ok round 3 ok " "dlclose: stdout"
one_leak dlclose main

# malloc failing inside libgpuleak, always or every Nth call: the program
# cannot tell.  (Not under ASan: the shim replaces the sanitizer's malloc.)
if [ -z "$GL_SAN" ]; then
    fc "$TPROG/scenarios" balanced >bare.out 2>/dev/null
    for every in all 1 2 3 7; do
        d=failmalloc.$every; mkdir $d
        set +e
        (cd $d && FAILMALLOC=$every LD_PRELOAD="$TPROG/failmalloc.so:$LIBGPULEAK" LD_LIBRARY_PATH="$FAKECUDA" \
            guard 60 "$TPROG/scenarios" balanced >out 2>err); rc=$?
        set -e
        expect_eq "$rc" 0 "failmalloc $every: exit status ($(cat $d/err))"
        cmp -s $d/out bare.out || fail "failmalloc $every: stdout changed"
        expect_eq "$(grep -vc '^gpuleak: ' $d/err || true)" 0 "failmalloc $every: foreign stderr: $(cat $d/err)"
        [ "$(grep -c '^gpuleak: ' $d/err || true)" -le 2 ] || fail "failmalloc $every: warnings: $(cat $d/err)"
        for f in $d/gpuleak.*.snap; do [ -e "$f" ] && { "$REPORT" "$f" >/dev/null || fail "$f unreadable"; }; done
    done
else
    echo "note: malloc-failure cases not run under $GL_SAN"
fi
true
