# Programs that never touch CUDA run unchanged under the preload: same
# output, same exit status, nothing on stderr, no snapshot written.
source "$ROOT/tests/lib.sh"

# same_under_preload CMD: CMD under sh, bare and with libgpuleak.so
# preloaded, exits with the same status and writes the same stdout and
# stderr.
same_under_preload() {
    local cmd=$1 rc1 rc2
    set +e
    sh -c "$cmd" >bare.out 2>bare.err; rc1=$?
    env LD_PRELOAD="$LIBGPULEAK" sh -c "$cmd" >pre.out 2>pre.err; rc2=$?
    set -e
    expect_eq "$rc2" "$rc1" "exit status of $cmd"
    cmp -s bare.out pre.out || fail "stdout of $cmd differs"
    cmp -s bare.err pre.err || fail "stderr of $cmd differs: $(cat pre.err)"
}

for cmd in "/bin/true" "/bin/false" "python3 -c pass" "python3 -c 'print(6*7)'" "exit 3" "ls /"; do
    same_under_preload "$cmd"
done
ls gpuleak.* 2>/dev/null && fail "a snapshot was written for a program without CUDA"
true

# More programs that never use CUDA: coreutils, bash, python3 with threads
# and subprocesses, a program that forks and execs a hundred children, and a
# statically linked binary (LD_PRELOAD does nothing to it).  Same output,
# same status, same stderr, no file, no thread of ours.
more=("bash -c 'for i in \$(seq 20); do echo \$i; done | sort -n | tail -3; exit 4'"
      "seq 1 100000 | sha256sum"
      "cat /etc/hostname /dev/null; ls -la / >/dev/null; date -d @0 -u"
      "python3 -c 'import threading, subprocess; t = threading.Thread(target=print, args=(1,)); t.start(); t.join(); print(subprocess.run([\"true\"]).returncode)'"
      "$TPROG/hostile forkexec"
      "$TPROG/static_hello a b")
for cmd in "${more[@]}"; do
    same_under_preload "$cmd"
done
ls gpuleak.* 2>/dev/null && fail "a snapshot was written for a program without CUDA"
# No thread started: a process that never called CUDA has one thread.
python3 - "$LIBGPULEAK" <<'PY'
import os, subprocess, sys
env = dict(os.environ, LD_PRELOAD=sys.argv[1])
out = subprocess.run(["python3", "-c", "print(open('/proc/self/status').read())"], env=env,
                     capture_output=True, text=True).stdout
threads = [l for l in out.splitlines() if l.startswith("Threads:")]
if threads != ["Threads:\t1"]:
    sys.exit("FAIL: threads in a process without CUDA: %r" % threads)
PY
true
