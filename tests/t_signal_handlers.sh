# A program that handles the snapshot signal itself keeps it: gpuleak says so
# once (at the first CUDA call, or, when the program takes the signal over
# later, within seconds and at the latest at exit) and tells how to choose
# another; the program is otherwise unaffected.  GPULEAK_SIGNAL picks another
# signal.
source "$ROOT/tests/lib.sh"
traced "$TPROG/scenarios" handler-first 2>err1.txt
expect_eq "$(grep -c '^gpuleak: ' err1.txt)" 1 "warning lines (handler before)"
grep -q "already has a handler.*GPULEAK_SIGNAL" err1.txt || fail "warning: $(cat err1.txt)"
traced "$TPROG/scenarios" handler-later >/dev/null 2>err2.txt
expect_eq "$(grep -c '^gpuleak: ' err2.txt)" 1 "warning lines (handler after)"
grep -q "replaced gpuleak's handler.*GPULEAK_SIGNAL" err2.txt || fail "warning: $(cat err2.txt)"
# With another signal, the program's own SIGUSR1 handler and gpuleak's
# snapshot signal coexist, without a word.
rm -f gpuleak.*.snap
env GPULEAK_SIGNAL=USR2 LD_PRELOAD="$LIBGPULEAK" LD_LIBRARY_PATH="$FAKECUDA" "$TPROG/scenarios" handler-later >out3.txt 2>err3.txt &
pid=$!
# "ready": its own SIGUSR1 handler is installed, and gpuleak's (first CUDA call)
wait_for -t 5 "the program to be ready" grep -q ready out3.txt
kill -USR1 $pid   # the program's own: its handler ignores it
kill -USR2 $pid   # gpuleak's
snapshots() { [ "$(ls gpuleak.*.snap 2>/dev/null | wc -l)" -ge 1 ]; }
wait_for -t 4 "the signal's snapshot" snapshots
wait $pid || fail "program failed"
expect_eq "$(cat err3.txt)" "" "stderr"
expect_eq "$(ls gpuleak.*.snap | wc -l)" 2 "snapshots (signal + exit)"
