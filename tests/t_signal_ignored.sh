# A snapshot signal the program ignores stays ignored (issue 26, item 10):
# gpuleak used to install its handler over SIG_IGN, so a child the program
# exec'ed (exec resets a caught signal to the default, keeps an ignored one)
# died of the signal it expected to ignore.  Now one warning naming
# GPULEAK_SIGNAL, and no handler.
source "$ROOT/tests/lib.sh"

traced "$TPROG/process_end" ignored-usr1 >out 2>err || fail "status $?"
expect_eq "$(cat out)" "usr1 ignored
child survived" "output"
expect_eq "$(cat err)" "gpuleak: the snapshot signal (GPULEAK_SIGNAL=10) is ignored by this program: left ignored, snapshots on signal are off (choose another with GPULEAK_SIGNAL, e.g. USR2)" "stderr"

# The same with GPULEAK_SIGNAL=USR2 ignored.
GPULEAK_SIGNAL=USR2 traced sh -c 'trap "" USR2; exec "$0" ignored-usr1' "$TPROG/process_end" >out2 2>err2 ||
    fail "USR2: status $?"
grep -q "GPULEAK_SIGNAL=12" err2 || fail "USR2: no warning: $(cat err2)"
