# gpuleak attach of a process whose thread gdb stops inside its allocator
# ("never crash the job"): the program's own malloc, not reentrant (as
# jemalloc's, tcmalloc's or glibc's single-threaded path are not), keeps
# its only thread inside it nearly all the time and counts every call
# made on a thread already inside one.  gdb's call of dlopen allocates:
# made where gdb stopped the thread, it ran inside the interrupted
# malloc.  (Before: every round counted reentered calls; with glibc's
# malloc the same thing rolled back the heap's top over the link map
# dlopen had just made, and t_attach_busy's target died of SIGSEGV in
# dl_iterate_phdr, ~1 run in 35.)  The launcher lets the thread leave
# the allocator first.  Two processes, the first attached to twice (the
# second time the library is loaded already): every attach and detach
# succeeds, no call reentered the allocator, the detach's snapshot is the
# process's own, and the exit status is the program's own.
source "$ROOT/tests/lib.sh"
skip_under_san "gdb calls into the process; the sanitizers' runtimes are not made for that"
command -v gdb >/dev/null || skip_if true "no gdb"
export LD_LIBRARY_PATH=$FAKECUDA
T=$TPROG/attach_malloc

for round in 1 2; do
    mkdir "r$round" && cd "r$round"
    "$T" 6 >out.txt 2>err.txt & # until ./stop exists
    pid=$!
    wait_for -t 10 "round $round: ready" grep -q '^ready$' out.txt
    rc=0; "$LAUNCHER" attach --output "$PWD/%p.%n.snap" "$pid" 2>attach.err || rc=$?
    expect_eq "$rc" 0 "round $round: attach ($(cat attach.err))"
    rc=0; "$LAUNCHER" detach "$pid" >detach.out 2>detach.err || rc=$?
    expect_eq "$rc" 0 "round $round: detach ($(cat detach.err))"
    if [ "$round" = 1 ]; then
        # Attached again, the library loaded already: the same path.
        rc=0; "$LAUNCHER" attach --output "$PWD/%p.%n.snap" "$pid" 2>attach2.err || rc=$?
        expect_eq "$rc" 0 "round $round: attach after the detach ($(cat attach2.err))"
        rc=0; "$LAUNCHER" detach "$pid" >detach2.out 2>detach2.err || rc=$?
        expect_eq "$rc" 0 "round $round: second detach ($(cat detach2.err))"
    fi
    touch stop
    st=0; wait "$pid" || st=$?
    expect_eq "$st" 6 "round $round: the program's exit status"
    expect_eq "$(cat out.txt)" "ready
reentered 0" "round $round: calls that reentered the program's allocator"
    snap=$(cat detach.out)
    [ -f "$snap" ] || fail "round $round: no detach snapshot ($snap)"
    "$REPORT" --json "$snap" >snap.json
    expect_eq "$(jget snap.json 'd["snapshot"]["pid"]')" "$pid" "round $round: the snapshot's process"
    cd ..
done
echo ok
