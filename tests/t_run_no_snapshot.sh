# What gpuleak run says when it finds no new snapshot (issue 48, item 12):
# GPULEAK_OUTPUT set by hand gets --output's check before the command
# starts; the library says a missing directory once, at the first CUDA
# call, and no second line when the write then fails; run's end line
# states what it saw (no CUDA call, a snapshot that could not be written,
# a process that ended without one, a snapshot written elsewhere), never
# a guessed cause.
source "$ROOT/tests/lib.sh"
export LD_LIBRARY_PATH=$FAKECUDA
[ -z "$GL_SAN" ] || export GPULEAK_LIB=$LIBGPULEAK
mkdir tmp && export TMPDIR=$PWD/tmp
run() { "$LAUNCHER" run "$@" >out.txt 2>err.txt; }
pids() { sed 's/process [0-9]*/process P/g; s/gpuleak\.[0-9]*\./gpuleak.P./g' err.txt; }

# GPULEAK_OUTPUT naming a missing directory: refused as --output is.
rc=0; run --output nodir/x.snap -- touch ran || rc=$?
expect_eq "$rc:$(cat err.txt)" "2:gpuleak: run: --output nodir/x.snap: no directory nodir" "--output"
rc=0; GPULEAK_OUTPUT=nodir/x.snap run -- touch ran || rc=$?
expect_eq "$rc:$(cat err.txt)" "2:gpuleak: run: GPULEAK_OUTPUT=nodir/x.snap: no directory nodir" "GPULEAK_OUTPUT"
[ ! -e ran ] || fail "the command ran with a missing output directory"

# The library alone (no launcher): one line, at the first CUDA call.
rc=0; GPULEAK_OUTPUT=nodir/x.snap traced "$TPROG/scenarios" leak-runtime >out.txt 2>err.txt || rc=$?
expect_eq "$rc:$(cat err.txt)" "0:gpuleak: GPULEAK_OUTPUT=nodir/x.snap: no directory nodir" "the library's line"

# No CUDA call at all.
rc=0; run -- true || rc=$?
expect_eq "$rc:$(cat err.txt)" "0:gpuleak: no snapshot was written: the command made no CUDA call gpuleak saw" "no CUDA"

# The directory removed by the command: the library's one line, then run's
# line says the snapshot could not be written (before: "the command made no
# CUDA allocation gpuleak saw").
mkdir gone
rc=0; run --output gone/ -- sh -c 'rmdir gone && exec "$0" leak-runtime' "$TPROG/scenarios" || rc=$?
cat >want.txt <<EOT
gpuleak: GPULEAK_OUTPUT=gone/: no directory gone
gpuleak: no snapshot was written: process P made CUDA calls, but its final snapshot could not be written (gpuleak's warning above says why)
EOT
pids | diff want.txt - || fail "an unwritable snapshot"

# Ended past libc: no snapshot, and run says so.
rc=0; run -- "$TPROG/quick_end" exit-group || rc=$?
expect_eq "$rc:$(pids)" "0:gpuleak: no snapshot was written: process P made CUDA calls, but it ended without a final snapshot" "exit_group"

# A relative pattern and a command that changes directory first: the
# snapshot is where the library wrote it, and run names it.
mkdir sub
rc=0; run --output x.%p.snap -- sh -c 'cd sub && exec "$0" leak-runtime' "$TPROG/scenarios" || rc=$?
snap=$(ls "$PWD"/sub/x.*.snap)
pid=${snap##*/x.}; pid=${pid%.snap}
expect_eq "$(cat err.txt)" "gpuleak: process $pid wrote its final snapshot to $snap; read it with: $LAUNCHER report $snap" "elsewhere"
expect_eq "$(ls -A tmp)" "" "run's own directory removed"
