# gpuleak-report --output (and --html, which names its file through it)
# writes the file whole or not at all: mode 0600, a planted symlink at the
# path replaced rather than written through, the old file kept when the
# report fails, and one line for a path that cannot be written.
source "$ROOT/tests/lib.sh"
traced "$TPROG/scenarios" leak-runtime
snap=$(ls gpuleak.*.snap)
"$REPORT" "$snap" >want.txt || fail "report: exit $?"

echo secret >target
ln -s target out.txt
"$REPORT" --output out.txt "$snap" || fail "--output: exit $?"
expect_eq "$(cat target)" secret "the symlink's target is untouched"
[ -f out.txt ] && [ ! -L out.txt ] || fail "out.txt is not a regular file in place of the symlink"
expect_eq "$(stat -c %a out.txt)" 600 "mode"
cmp -s out.txt want.txt || fail "--output differs from stdout's report"

ln -s target page.html
"$REPORT" --html page.html "$snap" || fail "--html: exit $?"
expect_eq "$(cat target)" secret "--html: the symlink's target is untouched"
[ -f page.html ] && [ ! -L page.html ] || fail "page.html is not a regular file"

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
