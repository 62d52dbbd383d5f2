# `gpuleak snapshot PID`: the request goes to gpuleak's writer thread alone
# (no program thread sees the signal: a 5 s nanosleep is not cut short); it
# is refused, with one line, when the signal would kill the program or go to
# the program's own handler; and it finds the file wherever the output
# pattern put it (any name, a directory with %h, after the program chdir()ed)
# and even when the program exits right after writing it.
source "$ROOT/tests/lib.sh"
export LD_LIBRARY_PATH=$FAKECUDA
[ -z "$GL_SAN" ] || export GPULEAK_LIB=$LIBGPULEAK
T=$TPROG/snapshot_target

# start NAME OUTPUT MODE ARGS...: runs the target under the launcher with
# --output OUTPUT in the background (stdout in NAME.out), waits until it is
# ready, and sets pids[NAME].
declare -A pids
start() {
    local name=$1 output=$2
    shift 2
    # --quiet: the command replaces the launcher, so $! is its pid.
    "$LAUNCHER" run --quiet --output "$output" -- "$T" "$@" >"$name.out" 2>"$name.err" &
    pids[$name]=$!
    wait_until -t 10 grep -q ready "$name.out" || fail "$name: target not ready ($REPLY): $(cat "$name.err")"
}
# The reason and live bytes of snapshot $1.
facts() {
    "$REPORT" --json "$1" >facts.json
    jget facts.json '"%s %d" % (d["snapshot"]["reason"], sum(l["bytes"] for l in d["leaks"]))'
}
mkdir snaps elsewhere quick "h-$(hostname | sed 's/[^A-Za-z0-9_.-]/_/g; s/^\./_/')"
start dfl snaps/ dfl 20000
start own snaps/ own 20000
start sleep snaps/ sleep 5000

# A 5 s nanosleep in the main thread runs to its end (checked last); the
# snapshot is written.
pid=${pids[sleep]}
name=$("$LAUNCHER" snapshot "$pid") || fail "snapshot failed"
expect_eq "$name" "$PWD/snaps/gpuleak.$pid.0.snap" "printed name"
expect_eq "$(facts "$name")" "signal 1000" "snapshot facts"

# SIGUSR1 set back to SIG_DFL: refused, one line, the program lives on.
pid=${pids[dfl]}
rc=0; "$LAUNCHER" snapshot "$pid" >out.txt 2>err.txt || rc=$?
expect_eq "$rc" 2 "status when the signal is not caught"
expect_eq "$(cat err.txt)" "gpuleak: snapshot: process $pid no longer catches SIGUSR1 (the program reset it), so the signal would kill it; not sent (choose another signal with GPULEAK_SIGNAL)" "message"
kill -0 "$pid" 2>/dev/null || fail "the program that reset SIGUSR1 is gone"

# The program's own SIGUSR1 handler: refused at once, the handler not run.
pid=${pids[own]}
rc=0; "$LAUNCHER" snapshot --timeout 3 "$pid" >out.txt 2>err.txt || rc=$?
expect_eq "$rc" 2 "status when the program handles the signal"
grep -q "process $pid handles SIGUSR1 itself" err.txt || fail "message: $(cat err.txt)"
expect_eq "$(cat own.out)" "ready" "the program's own output"
kill "${pids[dfl]}" "${pids[own]}"

# A name not ending in .snap, without %n: found; a second request, which
# the library could not write under the same name, is refused.
start gls 'snaps/run-%p.gls' sleep 20000
pid=${pids[gls]}
name=$("$LAUNCHER" snapshot "$pid") || fail "snapshot (.gls) failed"
expect_eq "$name" "$PWD/snaps/run-$pid.gls" "printed name (.gls)"
rc=0; "$LAUNCHER" snapshot "$pid" 2>err.txt || rc=$?
expect_eq "$rc" 2 "second request without %n"
grep -q "run-$pid.gls exists" err.txt || fail "message: $(cat err.txt)"
kill "$pid"

# %h in the directory part.
start host 'h-%h/%r.%n.snap' sleep 20000
name=$("$LAUNCHER" snapshot "${pids[host]}") || fail "snapshot (%h) failed"
expect_eq "$name" "$(echo "$PWD"/h-*)/0.0.snap" "printed name (%h)"
kill "${pids[host]}"

# The program chdir()s after its first CUDA call: the relative pattern still
# means the directory it meant then, for the library and for the launcher.
start cd snaps/ chdir elsewhere 20000
pid=${pids[cd]}
name=$("$LAUNCHER" snapshot "$pid") || fail "snapshot after chdir failed"
expect_eq "$name" "$PWD/snaps/gpuleak.$pid.0.snap" "printed name (chdir)"
kill "$pid"

# The program exits as soon as the snapshot is there (and writes its final
# one): the launcher still names the one it asked for.
start quick quick/ exit-after quick
pid=${pids[quick]}
name=$("$LAUNCHER" snapshot "$pid") || fail "snapshot of an exiting program failed"
expect_eq "$name" "$PWD/quick/gpuleak.$pid.0.snap" "printed name (exit)"
expect_eq "$(facts "$name")" "signal 1000" "snapshot facts (exit)"
wait "$pid"

rc=0; wait "${pids[sleep]}" || rc=$?
expect_eq "$rc" 0 "status of the sleeping program (3: its nanosleep was interrupted: $(cat sleep.out))"
for p in dfl own gls host cd; do wait "${pids[$p]}" 2>/dev/null || true; done

# Output written in place (issue 48 leftovers, item 3): a FIFO, or a
# descriptor of the program's, makes no file to wait for.  The request is
# sent, the reader gets the snapshot, and the launcher says so at once (one
# line, status 3) instead of waiting --timeout for a file.
mkfifo pipe.snap
cat pipe.snap >got.snap &
reader=$!
GPULEAK_OUTPUT=$PWD/pipe.snap "$LAUNCHER" run --quiet -- "$T" sleep 20000 >fifo.out 2>fifo.err &
pid=$!
wait_until -t 10 grep -q ready fifo.out || fail "fifo: target not ready: $(cat fifo.err)"
rc=0; "$LAUNCHER" snapshot --timeout 5 "$pid" >out.txt 2>err.txt || rc=$?
expect_eq "$rc" 3 "status for a FIFO"
expect_eq "$(cat err.txt)" "gpuleak: snapshot: requested from process $pid, which writes its snapshots in place to the FIFO $PWD/pipe.snap: no file to name" "message for a FIFO"
expect_eq "$(cat out.txt)" "" "no name printed for a FIFO"
wait "$reader"
expect_eq "$(facts got.snap)" "signal 1000" "the FIFO's snapshot"
kill "$pid"; wait "$pid" 2>/dev/null || true

GPULEAK_OUTPUT=/dev/fd/3 "$LAUNCHER" run --quiet -- "$T" sleep 20000 >fd.out 2>fd.err 3>stream.snap &
pid=$!
wait_until -t 10 grep -q ready fd.out || fail "fd: target not ready: $(cat fd.err)"
rc=0; "$LAUNCHER" snapshot --timeout 5 "$pid" >out.txt 2>err.txt || rc=$?
expect_eq "$rc" 3 "status for /dev/fd/3"
expect_eq "$(cat err.txt)" "gpuleak: snapshot: requested from process $pid, which writes its snapshots in place to its descriptor 3 ($PWD/stream.snap), as GPULEAK_OUTPUT=/dev/fd/3 asks: no file to name" "message for /dev/fd/3"
wait_for "the snapshot in stream.snap" sh -c '"$0" --json stream.snap >/dev/null 2>&1' "$REPORT"
kill -KILL "$pid"; wait "$pid" 2>/dev/null || true # (no fatal snapshot after it)
expect_eq "$(facts stream.snap)" "signal 1000" "the descriptor's snapshot"
