# gpuleak check judges an image that exec replaced (issue 48 leftovers,
# item 2): the exec hooks write its last snapshot (reason exec, not final)
# before the exec, and check judges it beside the next image's own final
# snapshot (same pid, the next free %n); a failed exec leaves the process
# owing its final snapshot, and the exec snapshot is not judged.
source "$ROOT/tests/lib.sh"
export LD_LIBRARY_PATH=$FAKECUDA
[ -z "$GL_SAN" ] || export GPULEAK_LIB=$LIBGPULEAK
T=$TPROG/exec_image
# (an exec snapshot's memory is "live": it is the image's end only if the
# exec succeeded, which the snapshot cannot know)
live8="live: 8,388,608 bytes (8.0 MiB) in 1 allocation from 1 stack"
leak4="leaked: 4,194,304 bytes (4.0 MiB) in 1 allocation from 1 stack"

# snap_facts SNAP: "reason final bytes function" of its one leak.
snap_facts() {
    "$REPORT" --json "$1" >facts.json
    jget facts.json '"%s %s %s" % (d["snapshot"]["reason"], d["snapshot"]["final"], " ".join("%d:%s" % (l["bytes"], l["frames"][0]["function"]) for l in d["leaks"]))'
}

# A CUDA program that execs a program that is no CUDA program: its leak is
# judged from its exec snapshot, whichever of the exec family it calls
# (execle's environment reaches the new image: env prints it).
for how in execv-true execlp-true execl-true execle-env; do
    rc=0; check_run --error-exitcode 3 --output "d$how" -- "$T" "$how" || rc=$?
    expect_eq "$rc" 3 "$how: check's status ($(cat err.txt))"
    cat >want.txt <<EOT
gpuleak: process P: ERRORS: $live8 [d$how/gpuleak.run-T.P.0.snap]
gpuleak: snapshots in d$how
$(check_summary "1 of 1")
EOT
    check_verdicts | diff want.txt - || fail "$how: verdict lines"
    expect_eq "$(snap_facts d"$how"/gpuleak.run-*.0.snap)" "exec False 8388608:leak_before_exec" "$how: the exec snapshot"
    [ "$how" != execle-env ] || expect_eq "$(cat out.txt)" "GL_EXECLE=passed" "execle: the new image's environment"
done

# Python's os.execv (ctypes against fakecuda): the line that allocated.
cat >pyexec.py <<'PY'
import ctypes, os
cudart = ctypes.CDLL(os.environ["LD_LIBRARY_PATH"].split(":")[0] + "/libcudart.so.13")
p = ctypes.c_void_p()
assert cudart.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(8 << 20)) == 0
os.execv("/bin/true", ["true"])
PY
rc=0; check_run --error-exitcode 3 --output dpy -- python3 pyexec.py || rc=$?
expect_eq "$rc" 3 "os.execv: check's status ($(cat err.txt))"
expect_eq "$(check_verdicts | grep -c ": ERRORS: $live8 ")" 1 "os.execv: the leak"
expect_eq "$(snap_facts dpy/gpuleak.run-*.0.snap)" "exec False 8388608:<module>" "os.execv: the exec snapshot"

# An image that execs a CUDA program (itself): both images are judged, each
# from its own snapshot, .0 (exec) and .1 (the next image's exit).
rc=0; check_run --error-exitcode 3 --output dself -- "$T" exec-self || rc=$?
expect_eq "$rc" 3 "exec-self: check's status ($(cat err.txt))"
cat >want.txt <<EOT
gpuleak: process P: ERRORS: $live8 [dself/gpuleak.run-T.P.0.snap]
gpuleak: process P: ERRORS: $leak4 [dself/gpuleak.run-T.P.1.snap]
gpuleak: snapshots in dself
$(check_summary "2 of 2")
EOT
check_verdicts | diff want.txt - || fail "exec-self: verdict lines"
expect_eq "$(snap_facts dself/gpuleak.run-*.0.snap)" "exec False 8388608:leak_before_exec" "exec-self: the first image"
expect_eq "$(snap_facts dself/gpuleak.run-*.1.snap)" "exit True 4194304:leak_after_exec" "exec-self: the second image"

# The next image leaks and is killed: the first image is still judged from
# its exec snapshot, and the second is named as ending without a final
# snapshot (the first image's is not called its "last snapshot").
rc=0; check_run --error-exitcode 3 --output dkill -- "$T" exec-self-kill || rc=$?
expect_eq "$rc" 3 "exec-self-kill: check's status ($(cat err.txt))"
cat >want.txt <<EOT
gpuleak: process P: ERRORS: $live8 [dkill/gpuleak.run-T.P.0.snap]
gpuleak: process P made CUDA calls, but it ended without a final snapshot: not checked, so not passed
gpuleak: snapshots in dkill
gpuleak: ERROR SUMMARY: 2 of 2 processes with errors (leaks, memory still mapped, refused frees, teardown releases; no final snapshot)
EOT
check_verdicts | diff want.txt - || fail "exec-self-kill: verdict lines"

# A failed exec: the program goes on (errno ENOENT), frees its 8 MiB and
# exits clean; only its final snapshot is judged.
rc=0; check_run --error-exitcode 3 --output dfail -- "$T" exec-fail || rc=$?
expect_eq "$rc" 0 "exec-fail: check's status ($(cat err.txt))"
expect_eq "$(check_verdicts | grep -c ': no errors: ')" 1 "exec-fail: one clean verdict"
expect_eq "$(check_verdicts | tail -1)" "$(check_summary "0 of 1")" "exec-fail: summary"
expect_eq "$(snap_facts dfail/gpuleak.run-*.0.snap)" "exec False 8388608:leak_before_exec" "exec-fail: the exec snapshot stays, not final"
expect_eq "$(snap_facts dfail/gpuleak.run-*.1.snap)" "exit True " "exec-fail: the final snapshot"

# Plain runs: the program's own status and output.
rc=0; "$T" exec-fail || rc=$?
expect_eq "$rc" 0 "exec-fail without gpuleak"
