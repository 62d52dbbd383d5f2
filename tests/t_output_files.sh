# Snapshot files: mode 0600, named from GPULEAK_OUTPUT (%p, %n, directories),
# never overwriting an existing file, never following a planted symlink; a
# failure costs the program nothing but one warning line.
source "$ROOT/tests/lib.sh"
umask 022

# Pattern with %p and %n in a directory given with a trailing slash.
mkdir out
GPULEAK_OUTPUT=out/ traced "$TPROG/scenarios" leak-runtime
f=$(ls out)
[[ $f =~ ^gpuleak\.[0-9]+\.0\.snap$ ]] || fail "default name in directory: $f"
expect_eq "$(stat -c %a "out/$f")" 600 "file mode"
ls -a out | grep -q gpuleak.tmp && fail "temporary file left behind"

GPULEAK_OUTPUT='run-%p-%n.snap' traced "$TPROG/scenarios" leak-runtime
ls run-*-0.snap >/dev/null || fail "pattern %p-%n not expanded: $(ls)"

# An existing file under the fixed name is left alone; one warning, same
# exit status and stdout.
echo precious >fixed.snap
set +e
GPULEAK_OUTPUT=fixed.snap traced "$TPROG/scenarios" errors >out.txt 2>err.txt; rc=$?
set -e
expect_eq "$rc" 0 "exit status with a taken output name"
expect_eq "$(cat fixed.snap)" precious "existing file content"
expect_eq "$(grep -c gpuleak err.txt)" 1 "warning lines"
fc "$TPROG/scenarios" errors | cmp -s - out.txt || fail "stdout changed"

# A planted symlink is neither followed nor replaced.
echo target >victim
ln -s victim link.snap
GPULEAK_OUTPUT=link.snap traced "$TPROG/scenarios" leak-runtime 2>/dev/null
expect_eq "$(cat victim)" target "symlink target content"
[ -L link.snap ] || fail "symlink was replaced"

# An unwritable directory: program unaffected, one warning line.
mkdir ro && chmod 0555 ro
if [ "$(id -u)" -ne 0 ]; then
    set +e
    GPULEAK_OUTPUT=ro/ traced "$TPROG/scenarios" leak-runtime 2>err2.txt; rc=$?
    set -e
    expect_eq "$rc" 0 "exit status with unwritable directory"
    expect_eq "$(grep -c gpuleak err2.txt)" 1 "warning lines (unwritable)"
fi
# A missing directory: the same.
set +e
GPULEAK_OUTPUT=missing/dir/x.snap traced "$TPROG/scenarios" leak-runtime 2>err3.txt; rc=$?
set -e
expect_eq "$rc" 0 "exit status with missing directory"
expect_eq "$(wc -l <err3.txt)" 1 "stderr lines (missing directory)"

# A relative pattern run from a directory whose name has '%' in it: the
# directory is literal text, not conversions (it was expanded as %p and %n).
mkdir 'wd%p%n' && (cd 'wd%p%n' && GPULEAK_OUTPUT='x.%n.snap' traced "$TPROG/scenarios" leak-runtime 2>../err4.txt)
[ -f 'wd%p%n/x.0.snap' ] || fail "snapshot in a directory named with '%': $(ls -R; cat err4.txt)"
[ ! -s err4.txt ] || fail "warnings: $(cat err4.txt)"
