# A snapshot that cannot be written (file size limit, so writing fails with
# EFBIG and would raise SIGXFSZ; a directory nobody can write, even root):
# the program finishes with the same exit status and output, plus at most one
# warning line, and no partial file is left under a snapshot name.
source "$ROOT/tests/lib.sh"
fc "$TPROG/scenarios" errors >bare.txt 2>bare.err
set +e
(ulimit -f 1; GPULEAK_MAX_ENTRIES=100000 traced "$TPROG/scenarios" errors >out.txt 2>err.txt); rc=$?
set -e
expect_eq "$rc" 0 "exit status with a 1 KiB file size limit"
cmp -s bare.txt out.txt || fail "stdout changed"
expect_eq "$(grep -c '^gpuleak: ' err.txt)" 1 "warning lines"
grep -q "File too large" err.txt || fail "unexpected warning: $(cat err.txt)"
ls gpuleak.*.snap 2>/dev/null && fail "a partial snapshot was left under a final name"
# /sys refuses new files even to root.
set +e
GPULEAK_OUTPUT=/sys/ traced "$TPROG/scenarios" errors >out2.txt 2>err2.txt; rc=$?
set -e
expect_eq "$rc" 0 "exit status with an unwritable directory"
cmp -s bare.txt out2.txt || fail "stdout changed (unwritable directory)"
expect_eq "$(wc -l <err2.txt)" 1 "stderr lines (unwritable directory)"
