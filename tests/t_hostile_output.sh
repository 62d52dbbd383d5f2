# Hostile output directories: missing, unwritable, a symlink planted by
# another user, a planted symlink under the snapshot's own name in a shared
# sticky directory, a full filesystem (a real tmpfs where mount namespaces
# are allowed, else a write() that fails with ENOSPC).  Always: the program's
# exit status and stdout unchanged, at most one "gpuleak: " line, nothing
# else on stderr, no file written through a planted symlink, nothing
# overwritten, no temporary file left behind.
source "$ROOT/tests/lib.sh"
chmod 0755 .   # other users (below) must reach the shared directory
fc "$TPROG/hostile" plain >bare.out 2>/dev/null || true

# as_other CMD...: runs CMD as an unprivileged user when we are root (so
# permissions apply), else as ourselves.
as_other() {
    if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
        setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
    else
        "$@"
    fi
}
# hostile_run OUTPUT [runner]: runs the program, checks the invariants
# ($EXTRA_PRELOAD: a library preloaded after libgpuleak).
hostile_run() {
    local out=$1; shift
    set +e
    "$@" env GPULEAK_OUTPUT="$out" LD_PRELOAD="$LIBGPULEAK${EXTRA_PRELOAD:+:$EXTRA_PRELOAD}" LD_LIBRARY_PATH="$FAKECUDA" "$TPROG/hostile" plain \
        >run.out 2>run.err
    local rc=$?
    set -e
    expect_eq "$rc" 3 "exit status (GPULEAK_OUTPUT=$out)"
    cmp -s bare.out run.out || fail "stdout changed (GPULEAK_OUTPUT=$out)"
    expect_eq "$(grep -vc '^gpuleak: ' run.err || true)" 0 "foreign stderr lines: $(cat run.err)"
    [ "$(grep -c '^gpuleak: ' run.err || true)" -le 1 ] || fail "more than one warning: $(cat run.err)"
    if find . -name '.gpuleak.tmp.*' | grep -q .; then fail "temporary file left: $(find . -name '.gpuleak.tmp.*')"; fi
}

# Missing directory.
hostile_run missing/deeper/x.snap
expect_eq "$(grep -c '^gpuleak: ' run.err)" 1 "warning for a missing directory"
[ ! -e missing ] || fail "a missing directory was created"

# Unwritable directory (as an unprivileged user; as root permissions do not
# apply, so that case needs setpriv).
mkdir ro && chmod 0555 ro
if [ "$(id -u)" -ne 0 ] || command -v setpriv >/dev/null; then
    hostile_run ro/ as_other
    expect_eq "$(ls -A ro)" "" "files in an unwritable directory"
    expect_eq "$(grep -c '^gpuleak: ' run.err)" 1 "warning for an unwritable directory"
fi

# A directory symlink planted by another user: not followed.  Our own
# symlink to elsewhere is followed (the user's choice).
mkdir elsewhere mine
ln -s "$PWD/elsewhere" planted
if [ "$(id -u)" -eq 0 ]; then
    chown -h 65534:65534 planted
    hostile_run planted/
    expect_eq "$(ls -A elsewhere)" "" "files written through a planted directory symlink"
    grep -q 'symbolic links' run.err || fail "warning for a planted directory symlink: $(cat run.err)"
    # ... nor into a FIFO there, written in place (issue 48): held open
    # both ways here, so that a write would not wait, and read back empty.
    mkfifo elsewhere/fifo
    exec 7<>elsewhere/fifo
    hostile_run planted/fifo
    grep -q 'symbolic links' run.err || fail "warning for a FIFO behind a planted directory symlink: $(cat run.err)"
    expect_eq "$(python3 -c 'import os; os.set_blocking(7, False)
try: print(len(os.read(7, 1 << 20)))
except BlockingIOError: print(0)')" 0 "bytes written into a FIFO behind a planted directory symlink"
    exec 7>&-
    rm elsewhere/fifo
fi
ln -s "$PWD/mine" own
hostile_run own/
[ "$(ls mine | wc -l)" -eq 1 ] || fail "our own directory symlink was not followed: $(ls -A mine)"

# A shared sticky directory (like /tmp) where another user planted a
# symlink under the snapshot's name: the victim is untouched, the next free
# number is used.
mkdir shared && chmod 1777 shared
echo precious >victim && chmod 0644 victim
as_other ln -s "$PWD/victim" shared/snap.0
as_other ln -s "$PWD/victim" shared/fixed.snap
hostile_run 'shared/snap.%n'
expect_eq "$(cat victim)" precious "symlink target content"
[ -L shared/snap.0 ] || fail "the planted symlink was replaced"
[ -f shared/snap.1 ] && [ ! -L shared/snap.1 ] || fail "snapshot not written as snap.1: $(ls -l shared)"
"$REPORT" shared/snap.1 >/dev/null || fail "snap.1 unreadable"
# ...and without %n: skipped, one warning, nothing overwritten.
hostile_run shared/fixed.snap
expect_eq "$(cat victim)" precious "symlink target content (fixed name)"
expect_eq "$(grep -c '^gpuleak: ' run.err)" 1 "warning for a taken name"
# A file another user owns under the name: never overwritten.
as_other sh -c 'echo theirs >shared/theirs.snap'
hostile_run shared/theirs.snap
expect_eq "$(cat shared/theirs.snap)" theirs "another user's file"

# Full filesystem: a real 64 KiB tmpfs, filled up, when we may mount one in
# a private mount namespace; the ENOSPC shim otherwise (and always, for a
# filesystem that fills up in the middle of the file).
mkdir full
if unshare -m true 2>/dev/null && unshare -m sh -c "mount -t tmpfs -o size=64k tmpfs full" 2>/dev/null; then
    set +e
    unshare -m sh -c '
        mount -t tmpfs -o size=64k tmpfs full || exit 99
        dd if=/dev/zero of=full/filler bs=4k count=1000 2>/dev/null
        env GPULEAK_OUTPUT=full/ LD_PRELOAD="$1" LD_LIBRARY_PATH="$2" "$3" plain >run.out 2>run.err
        rc=$?
        ls -A full >full.ls
        exit $rc' sh "$LIBGPULEAK" "$FAKECUDA" "$TPROG/hostile"
    rc=$?
    set -e
    expect_eq "$rc" 3 "exit status on a full tmpfs"
    cmp -s bare.out run.out || fail "stdout changed on a full tmpfs"
    expect_eq "$(grep -c '^gpuleak: ' run.err)" 1 "warning on a full tmpfs: $(cat run.err)"
    expect_eq "$(cat full.ls)" filler "files left on the full tmpfs"
else
    echo "note: no mount namespace; the full-filesystem case uses the ENOSPC shim only"
fi
for after in 0 100 1000; do
    EXTRA_PRELOAD=$TPROG/enospc.so hostile_run full/ env ENOSPC_AFTER=$after
    expect_eq "$(grep -c '^gpuleak: ' run.err)" 1 "warning with ENOSPC after $after bytes"
    grep -q 'No space left' run.err || fail "ENOSPC warning: $(cat run.err)"
    expect_eq "$(ls -A full)" "" "files left after ENOSPC at $after bytes"
done
true
