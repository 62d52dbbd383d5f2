# Programs that never touch CUDA run unchanged under the preload: same
# output, same exit status, nothing on stderr, no snapshot written.
source "$ROOT/tests/lib.sh"
for cmd in "/bin/true" "/bin/false" "python3 -c pass" "python3 -c 'print(6*7)'" "exit 3" "ls /"; do
    set +e
    sh -c "$cmd" >bare.out 2>bare.err; rc1=$?
    env LD_PRELOAD="$LIBGPULEAK" sh -c "$cmd" >pre.out 2>pre.err; rc2=$?
    set -e
    expect_eq "$rc2" "$rc1" "exit status of $cmd"
    cmp -s bare.out pre.out || fail "stdout of $cmd differs"
    cmp -s bare.err pre.err || fail "stderr of $cmd differs: $(cat pre.err)"
done
ls gpuleak.* 2>/dev/null && fail "a snapshot was written for a program without CUDA"
true
