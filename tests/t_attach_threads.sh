# Attaching and detaching while threads allocate (docs/attach.md, issue 39
# "never harm the job"): 4 threads loop cudaMalloc/cudaFree without pause
# while gpuleak attaches and detaches 5 times.  No CUDA call fails, every
# thread goes on, the program's output and exit status are those of a run
# without the attach, no free is taken for a bad free (memory allocated
# before an attach and freed during it is "made before attach"), and after
# the last detach no handler or thread of gpuleak is left.
source "$ROOT/tests/lib.sh"
skip_under_san "gdb injects the uninstrumented library into a program built without the sanitizer"
command -v gdb >/dev/null || { echo "SKIP: no gdb"; exit 77; }
export LD_LIBRARY_PATH=$FAKECUDA
T=$TPROG/attach_threads

run() { target_start "$1" 200 "$T" 4; }
finish() { target_finish; }

run plain
finish
plain_rc=$rc

mkdir snaps
run attached
for i in 1 2 3 4 5; do
    "$LAUNCHER" attach --output snaps/ "$pid" 2>>attach.err || fail "attach $i: $(cat attach.err)"
    last=$("$LAUNCHER" detach "$pid" 2>>detach.err) || fail "detach $i: $(cat detach.err)"
    "$REPORT" --json "$last" >"d$i.json" || fail "detach snapshot $i unreadable"
    expect_eq "$(jget "d$i.json" 'len(d.get("bad_frees") or [])')" 0 "bad frees in detach snapshot $i"
    expect_eq "$(jget "d$i.json" 'd["devices"][0]["unknown_free_count"]')" 0 "unknown frees in detach snapshot $i"
    # The threads' calls were tracked while attached.
    expect_eq "$(jget "d$i.json" 'd["devices"][0]["alloc_count"] > 0')" True "allocations seen in attach $i"
done
for t in /proc/"$pid"/task/*; do
    [ "$(cat "$t/comm")" != gpuleak-writer ] || fail "the writer thread outlived the detach"
done
sigcgt=$(awk '/^SigCgt:/ {print $2}' "/proc/$pid/status")
expect_eq "$(( (16#$sigcgt >> 9) & 1 ))" 0 "SIGUSR1 caught after the detach"
finish
expect_eq "$rc" "$plain_rc" "exit status"
expect_eq "$rc" 3 "the program's own exit status"
expect_eq "$(cat attached.out)" "$(printf 'ready\nfailures 0\nidle threads 0')" "the program's output"
cmp -s plain.out attached.out || fail "output differs: $(diff plain.out attached.out)"
echo ok
