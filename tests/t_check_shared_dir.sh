# Two gpuleak check runs at once with the same --output DIR (two CI jobs
# sharing a directory; issue 48, item 4): each judges its own processes
# only, and waits for no other's.  Run A's command is clean and run B's
# leaks; their commands are interleaved so that B's leak is written while A
# runs, and A's process still runs when B's command ends.  Before each run
# kept its own tag in its snapshots' names, A failed with status 3 because
# of B's leak, and B judged A's process too.
source "$ROOT/tests/lib.sh"
export LD_LIBRARY_PATH=$FAKECUDA
[ -z "$GL_SAN" ] || export GPULEAK_LIB=$LIBGPULEAK
mkdir shared

# A: starts, waits for B's leak to be written, then runs clean.
"$LAUNCHER" check --error-exitcode 3 --output shared -- sh -c '
    touch a.started
    while [ ! -e b.done ]; do sleep 0.05; done
    echo $$ >a.pid
    exec "$1" balanced' sh "$TPROG/scenarios" >a.out 2>a.err &
a=$!
# B: once A runs, leaks and ends while A's process is still running.
rc_b=0
"$LAUNCHER" check --error-exitcode 3 --output shared -- sh -c '
    while [ ! -e a.started ]; do sleep 0.05; done
    "$1" leak-runtime & echo $! >b.pid
    wait $!
    touch b.done' sh "$TPROG/scenarios" >b.out 2>b.err || rc_b=$?
rc_a=0
wait "$a" || rc_a=$?

expect_eq "$rc_a" 0 "the clean run's status ($(cat a.err))"
expect_eq "$rc_b" 3 "the leaking run's status ($(cat b.err))"
pa=$(cat a.pid) pb=$(cat b.pid)
# Each run's verdict lines: its own process, and no other.
expect_eq "$(grep -o '^gpuleak: process [0-9]*' a.err | sort -u)" "gpuleak: process $pa" "run A's processes"
expect_eq "$(grep -o '^gpuleak: process [0-9]*' b.err | sort -u)" "gpuleak: process $pb" "run B's processes"
expect_eq "$(tail -1 a.err)" \
    "gpuleak: ERROR SUMMARY: 0 of 1 processes with errors (leaks, memory still mapped, refused frees, teardown releases)" "run A's summary"
expect_eq "$(tail -1 b.err)" \
    "gpuleak: ERROR SUMMARY: 1 of 1 processes with errors (leaks, memory still mapped, refused frees, teardown releases)" "run B's summary"
grep -q "^gpuleak: process $pb: ERRORS: leaked: 2,097,152 bytes (2.0 MiB) in 2 allocations from 1 stack \[shared/gpuleak\.run-[A-Za-z0-9]\{6\}\.$pb\.0\.snap\]$" b.err ||
    fail "run B's verdict line: $(cat b.err)"
# Both runs' snapshots stay in the shared directory, each under its run's
# tag (two tags); nothing else is left there.
expect_eq "$(ls shared | sed 's/^gpuleak\.run-[A-Za-z0-9]\{6\}\.[0-9]*\.0\.snap$/snap/' | sort | uniq -c | tr -s ' ')" " 2 snap" "the shared directory"
expect_eq "$(ls shared | cut -d. -f2 | sort -u | wc -l)" 2 "two run tags"
expect_eq "$(ls -A shared | grep -c '^\.' || true)" 0 "no claim file left"
echo ok
