# gpuleak check ended by a signal after its command (here while it waits,
# --wait, for a process the command left running): it dies of that signal,
# as the script did, and leaves none of its own files behind -- its work
# directory in $TMPDIR (the marks, the reports) and a shared --output
# directory's claim file -- as the script's EXIT trap removed them.  The
# snapshot directory stays: what was written may be read.
source "$ROOT/tests/lib.sh"
export LD_LIBRARY_PATH=$FAKECUDA
[ -z "$GL_SAN" ] || export GPULEAK_LIB=$LIBGPULEAK
mkdir tmp
export TMPDIR=$PWD/tmp

# check's command has ended (check has no child left) and its background
# process is running: check is in its --wait loop.
waiting() { [ -s bg.pid ] && [ -z "$(tr -d ' ' <"/proc/$pid/task/$pid/children" 2>/dev/null)" ]; }

for sig in TERM INT; do
    rm -f bg.pid
    # (INT is not ignored in the background: set -m gives check its own
    # process group, as a shell's job)
    set -m
    "$LAUNCHER" check --wait 60 --output out -- sh -c 'sleep 60 & echo $! >bg.pid; exit 0' 2>err.txt &
    pid=$!
    set +m
    wait_for "check to wait for its background process" waiting
    kill -"$sig" "$pid"
    rc=0; wait "$pid" || rc=$?
    kill "$(cat bg.pid)" 2>/dev/null || true
    expect_eq "$rc" "$((128 + $(kill -l "$sig")))" "SIG$sig: check's status"
    expect_eq "$(ls -A tmp)" "" "SIG$sig: files left in TMPDIR"
    expect_eq "$(ls -A out)" "" "SIG$sig: files left in the --output directory"
done
echo ok
