# Issue 35, item 2: PyTorch's view in the snapshots that cannot ask it.
# Real torch 2.14.1 on fakecuda, tests/programs/torch_real_exit.py keeps a
# 4 MiB tensor alive (KEPT-LINE) and then:
#  - exit: `gpuleak run -- python script.py`'s exit snapshot lists that
#    tensor, taken by gpuleak's atexit callback before finalization; a
#    child forked before it exits normally: its exit snapshot has no view
#    (the parent's is not the child's memory);
#  - segv: after a SIGUSR1 snapshot (which asked), it dies of SIGSEGV 1.2 s
#    later: the fatal snapshot carries that last view and says its age;
#  - busy: SIGUSR1 while the main thread sleeps 3 s in libc's sleep() (C,
#    GIL held): snapshot 0 has no answer and says a follow-up comes;
#    snapshot 1, the follow-up written when the main thread returns to
#    bytecode, has the tensor;
#  - noinit (torch imported, CUDA never initialized): nothing asked, no
#    snapshot; osexit: os._exit(3) runs no atexit, and its status stays 3;
#    its final snapshot carries the last view (the signal snapshot's).
source "$ROOT/tests/lib.sh"
torch_real_setup
prog=$ROOT/tests/programs/torch_real_exit.py
kept=$(site_line torch_real_exit.py KEPT-LINE)
tensor_line="        4,194,304 bytes (4.0 MiB) in 1 tensor: <module> (torch_real_exit.py:$kept)"

run_mode() { # MODE WANT_STATUS
    local rc=0
    mkdir "$1"
    (cd "$1" && "$FAKECUDA/fakecuda-run" --devices 1 -- "$LAUNCHER" run -- "$PY" "$prog" "$1" >out.txt 2>err.txt) || rc=$?
    expect_eq "$rc" "$2" "$1: exit status"
    if grep -q '^fakecuda: ' "$1/err.txt"; then fail "$1: $(grep '^fakecuda: ' "$1/err.txt")"; fi
}
cache() { "$REPORT" "$1" | sed -n "/^PYTORCH'S CACHE/,/^LEAK SUMMARY/p"; }
has_tensor() { # SNAP WHAT
    cache "$1" >c.txt
    grep -qxF "$tensor_line" c.txt || fail "$2: no kept tensor in PYTORCH'S CACHE: $(head -12 c.txt)"
    expect_eq "$(grep -m1 '^    allocated:' c.txt)" "    allocated: 4,194,304 bytes (4.0 MiB) in 1 tensor" "$2: tensor total"
}
age_of() { cache "$1" | sed -nE "s/^PyTorch's view from ([0-9.]+) s before this snapshot.*/\1/p"; }

run_mode exit 0
n_with=0
for f in exit/*.snap; do
    if "$REPORT" "$f" | grep -q "^PYTORCH'S CACHE"; then
        n_with=$((n_with + 1))
        has_tensor "$f" "exit"
    fi
done
expect_eq "$(ls exit/*.snap | wc -l) $n_with" "2 1" "exit: snapshots, and those with a view (the parent's, not the forked child's)"

run_mode segv 139
expect_eq "$(grep -c 'before crash' segv/out.txt)" 1 "segv: reached the crash"
fatal=$(ls segv/*.1.snap) || fail "segv: no fatal snapshot"
has_tensor "$fatal" "segv fatal snapshot"
age=$(age_of "$fatal")
[ -n "$age" ] || fail "segv: the fatal snapshot does not say its view's age"
awk -v a="$age" 'BEGIN { exit !(a >= 1.2 && a < 10) }' || fail "segv: view age $age s, want >= 1.2 s"

run_mode busy 0
expect_eq "$(grep -c 'back from C' busy/out.txt)" 1 "busy: returned from C"
cache busy/*.0.snap >c0.txt
grep -q "^PyTorch was not asked in time" c0.txt || fail "busy: snapshot 0 answered: $(head -3 c0.txt)"
grep -q "^It is asked again when it returns: a follow-up snapshot carries its view.$" c0.txt ||
    fail "busy: snapshot 0 does not say a follow-up comes"
has_tensor "$(ls busy/*.1.snap)" "busy follow-up snapshot"
[ -n "$(age_of busy/*.1.snap)" ] || fail "busy: the follow-up does not say its view's age"
# Exactly three: the one that gave up, its follow-up, the exit snapshot.
expect_eq "$(ls busy/*.snap | wc -l)" 3 "busy: snapshots"

run_mode noinit 0
expect_eq "$(cat noinit/out.txt)" "cuda initialized False" "noinit: CUDA left uninitialized"
expect_eq "$(ls noinit | grep -c '\.snap$')" 0 "noinit: snapshots"

run_mode osexit 3
# the signal one, then os._exit's final snapshot (issue 48, item 2), which
# carries the signal snapshot's view: no atexit callback ran to ask again
expect_eq "$(ls osexit/*.snap | wc -l)" 2 "osexit: snapshots (the signal one, then _exit's)"
"$REPORT" --json osexit/*.1.snap >osexit.json
json_assert osexit.json '' <<'PY'
eq((d["snapshot"]["final"], d["snapshot"]["reason"]), (True, "exit"), "osexit: the final snapshot")
PY
has_tensor "$(ls osexit/*.1.snap)" "osexit final snapshot"
