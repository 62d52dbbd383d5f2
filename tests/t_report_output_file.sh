# gpuleak-report --output (and --html, which names its file through it)
# writes the file whole or not at all: mode 0600, a planted symlink at the
# path refused, neither written through nor replaced (issue 48; devices,
# FIFOs and streams: t_output_targets), the old file kept when the
# report fails, and one line for a path that cannot be written.
source "$ROOT/tests/lib.sh"
traced "$TPROG/scenarios" leak-runtime
snap=$(ls gpuleak.*.snap)
"$REPORT" "$snap" >want.txt || fail "report: exit $?"

echo secret >target
ln -s target out.txt
rc=0; "$REPORT" --output out.txt "$snap" 2>err.txt || rc=$?
expect_eq "$rc:$(cat err.txt)" "1:gpuleak-report: out.txt: cannot write: is a symbolic link, not followed (name the file itself; a stream is /dev/stdout, /dev/stderr or /dev/fd/N)" "--output on a symlink"
expect_eq "$(cat target)" secret "the symlink's target is untouched"
[ -L out.txt ] || fail "the symlink was replaced"
rm out.txt
echo old >out.txt && chmod 644 out.txt
"$REPORT" --output out.txt "$snap" || fail "--output: exit $?"
[ -f out.txt ] && [ ! -L out.txt ] || fail "out.txt is not a regular file"
expect_eq "$(stat -c %a out.txt)" 600 "mode"
cmp -s out.txt want.txt || fail "--output differs from stdout's report"

ln -s target page.html
rc=0; "$REPORT" --html page.html "$snap" 2>err.txt || rc=$?
expect_eq "$rc" 1 "--html on a symlink: status"
expect_eq "$(cat target)" secret "--html: the symlink's target is untouched"
[ -L page.html ] || fail "--html: the symlink was replaced"

# A report that fails (a corrupt snapshot) leaves the old file as it was.
head -c 100 "$snap" >bad.snap
rc=0; "$REPORT" --output out.txt bad.snap 2>err.txt || rc=$?
[ "$rc" -ne 0 ] || fail "a corrupt snapshot: exit 0"
cmp -s out.txt want.txt || fail "the old file changed after a failed report"

rc=0; "$REPORT" --output nodir/out.txt "$snap" 2>err.txt || rc=$?
expect_eq "$rc" 1 "unwritable path: status"
expect_eq "$(wc -l <err.txt)" 1 "unwritable path: one line ($(cat err.txt))"
grep -q '^gpuleak-report: nodir/out.txt: cannot write: ' err.txt || fail "unwritable path: $(cat err.txt)"
[ -z "$(ls -A | grep -v -E '^(\.log|gpuleak\..*\.snap|want\.txt|target|out\.txt|page\.html|bad\.snap|err\.txt)$')" ] ||
    fail "a temporary was left: $(ls -A)"
