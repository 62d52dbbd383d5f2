# Output targets that are not regular files (issue 48, item 3): every
# writer -- gpuleak-report's --output, --html, --pprof and --torch-snapshot,
# gpuleak check --json=FILE, and the library's GPULEAK_OUTPUT -- writes a
# character device or a FIFO in place and leaves it what it was (never
# renamed over: root's `--output /dev/null` replaced /dev/null), writes the
# spelled-out stream /dev/fd/N to that descriptor, and refuses a symlink
# (here one to /dev/stdout) in one line, writing nothing through it.  The
# rule is common/output_target.h's; docs/reliability.md, "Output targets".
# The device is a null device made here with mknod (root only; without root
# those cases are skipped and counted), never the machine's /dev/null.
source "$ROOT/tests/lib.sh"
export LD_LIBRARY_PATH=$FAKECUDA
[ -z "$GL_SAN" ] || export GPULEAK_LIB=$LIBGPULEAK
umask 022

traced "$TPROG/scenarios" leak-runtime
snap=$(only_snapshot)
mkfifo fifo
ln -s /dev/stdout link
skipped=0
device=""
if [ "$(id -u)" = 0 ] && mknod null c 1 3 2>/dev/null; then device=null; fi
link_refusal="is a symbolic link, not followed (name the file itself; a stream is /dev/stdout, /dev/stderr or /dev/fd/N)"

# write_with OPTION TARGET: the writer of OPTION, its stdout in w.out and its
# stderr in w.err, its status in rc.  check's command leaks 2 MiB (status 0:
# no --error-exitcode).
write_with() {
    rc=0
    if [ "$1" = --json ]; then
        "$LAUNCHER" check --json="$2" -- "$TPROG/scenarios" leak-runtime >w.out 2>w.err || rc=$?
    else
        "$REPORT" "$1" "$2" "$snap" >w.out 2>w.err || rc=$?
    fi
}
# same_as_file OPTION GOT: GOT holds what OPTION writes to a regular file.
same_as_file() {
    if [ "$1" = --json ]; then
        expect_eq "$(jget "$2" '[d["format"], d["job"]["processes"], d["processes"][0]["leaked_bytes"]]')" \
            '["gpuleak-check", 1, 2097152]' "$1: the document received"
    else
        cmp -s "$2" "ref$1" || fail "$1: received $(wc -c <"$2") bytes, not the $(wc -c <"ref$1") of the file"
    fi
}
# Nothing but what the test made: no temporary beside a target.
only_ours() {
    local extra
    extra=$(ls -A | grep -v -E '^(\.log|gpuleak\..*\.snap|fifo|link|null|ref--.*|w\.out|w\.err|got|fd3|lib\.snap|lib\.json|nofifo|.*\.txt)$' || true)
    [ -z "$extra" ] || fail "$1: left beside the targets: $extra"
}

for opt in --output --html --pprof --torch-snapshot; do
    write_with "$opt" "ref$opt"
    expect_eq "$rc" 0 "$opt to a file"
done

for opt in --output --html --pprof --torch-snapshot --json; do
    # A FIFO with a reader: the reader gets it all, the FIFO stays a FIFO.
    # (fd 7 holds the FIFO open both ways, so that neither side waits for
    # the other and the reader ends when fd 7 and the writer are closed.)
    exec 7<>fifo
    cat fifo >got 7>&- &
    reader=$!
    write_with "$opt" fifo
    exec 7>&-
    wait "$reader"
    expect_eq "$rc:$(cat w.err | grep -v '^gpuleak: process\|ERROR SUMMARY\|snapshots in' || true)" "0:" "$opt to a FIFO"
    [ -p fifo ] || fail "$opt: the FIFO was replaced: $(ls -l fifo)"
    same_as_file "$opt" got
    only_ours "$opt to a FIFO"

    # The character device: written in place, still the device.
    if [ -n "$device" ]; then
        write_with "$opt" "$device"
        expect_eq "$rc" 0 "$opt to a device"
        expect_eq "$(stat -c '%F %t,%T' null)" "character special file 1,3" "$opt: the device node"
        only_ours "$opt to a device"
    else
        skipped=$((skipped + 1))
    fi

    # The spelled-out stream /dev/fd/3: that descriptor.
    rc=0
    if [ "$opt" = --json ]; then
        "$LAUNCHER" check --json=/dev/fd/3 -- "$TPROG/scenarios" leak-runtime >w.out 2>w.err 3>fd3 || rc=$?
    else
        "$REPORT" "$opt" /dev/fd/3 "$snap" >w.out 2>w.err 3>fd3 || rc=$?
    fi
    expect_eq "$rc:$(wc -c <w.out)" "0:0" "$opt to /dev/fd/3 (nothing on stdout)"
    same_as_file "$opt" fd3

    # A symlink to /dev/stdout: refused in one line, nothing written through
    # it; check refuses it before the command runs.
    write_with "$opt" link
    if [ "$opt" = --json ]; then
        expect_eq "$rc:$(cat w.err)" "2:gpuleak: check: --json link: $link_refusal" "$opt to a symlink"
    else
        expect_eq "$rc:$(cat w.err)" "1:gpuleak-report: link: cannot write: $link_refusal" "$opt to a symlink"
    fi
    expect_eq "$(wc -c <w.out)" 0 "$opt: nothing through the symlink"
    expect_eq "$(readlink link)" /dev/stdout "$opt: the symlink"
    only_ours "$opt to a symlink"
done

# The library: GPULEAK_OUTPUT naming a FIFO with a reader, /dev/fd/3, the
# device (with periodic snapshots and GPULEAK_KEEP=2, which removes old
# periodic files: never the device), a FIFO nobody reads (one line, the
# program unharmed) and the symlink (one line, nothing through it).
exec 7<>fifo
cat fifo >lib.snap 7>&- &
reader=$!
GPULEAK_OUTPUT=$PWD/fifo traced "$TPROG/scenarios" leak-runtime >w.out 2>w.err || fail "library, FIFO: status $?"
exec 7>&-
wait "$reader"
expect_eq "$(cat w.err)" "" "library, FIFO: no warning"
[ -p fifo ] || fail "library: the FIFO was replaced"
"$REPORT" --json lib.snap >lib.json || fail "library, FIFO: not a snapshot"
expect_eq "$(jget lib.json 'sum(l["bytes"] for l in d["leaks"])')" 2097152 "library, FIFO: the snapshot the reader got"
rm lib.snap
GPULEAK_OUTPUT=/dev/fd/3 traced "$TPROG/scenarios" leak-runtime >w.out 2>w.err 3>lib.snap || fail "library, /dev/fd/3: status $?"
expect_eq "$(cat w.err)" "" "library, /dev/fd/3: no warning"
"$REPORT" lib.snap >/dev/null || fail "library, /dev/fd/3: not a snapshot"
if [ -n "$device" ]; then
    GPULEAK_OUTPUT=$PWD/null traced "$TPROG/scenarios" leak-runtime >w.out 2>w.err || fail "library, device: status $?"
    expect_eq "$(cat w.err)" "" "library, device: no warning"
    expect_eq "$(stat -c '%F %t,%T' null)" "character special file 1,3" "library: the device node"
else
    skipped=$((skipped + 1))
fi
# Periodic snapshots into the FIFO with GPULEAK_KEEP=2, which removes old
# periodic files from the third on: never the FIFO.  The reader (holding
# it open both ways, so that no open waits) counts four snapshots.
head -c 8 "$snap" >magic.txt
python3 - fifo magic.txt >count.txt <<'PY' &
import os, sys
magic = open(sys.argv[2], "rb").read()
fd = os.open(sys.argv[1], os.O_RDWR)
print("open", flush=True)
seen = b""
while seen.count(magic) < 4:
    seen += os.read(fd, 1 << 16)
print(seen.count(magic), flush=True)
PY
reader=$!
until grep -q open count.txt; do sleep 0.05; done
GPULEAK_OUTPUT=$PWD/fifo GPULEAK_INTERVAL=100ms GPULEAK_KEEP=2 LD_PRELOAD=$LIBGPULEAK "$TPROG/scenarios" wait >p.txt 2>&1 &
pid=$!
wait "$reader"
[ -p fifo ] || fail "library, periodic: the FIFO was removed ($(ls -l fifo 2>&1))"
kill -0 "$pid" || fail "library, periodic: the program died"
kill "$pid"
wait "$pid" || true
[ -p fifo ] || fail "library, periodic: the FIFO was removed at exit"
mkfifo nofifo
rc=0; GPULEAK_OUTPUT=$PWD/nofifo guard 60 env LD_PRELOAD="$LIBGPULEAK" "$TPROG/scenarios" leak-runtime >w.out 2>w.err || rc=$?
expect_eq "$rc:$(cat w.err)" "0:gpuleak: cannot write snapshot $PWD/nofifo: No such device or address" "library, a FIFO nobody reads"
[ -p nofifo ] || fail "library: the unread FIFO was replaced"
rc=0; GPULEAK_OUTPUT=$PWD/link traced "$TPROG/scenarios" leak-runtime >w.out 2>w.err || rc=$?
expect_eq "$rc:$(cat w.err)" "0:gpuleak: cannot write snapshot $PWD/link: Too many levels of symbolic links" "library, a symlink"
expect_eq "$(wc -c <w.out)" 0 "library: nothing through the symlink"
expect_eq "$(readlink link)" /dev/stdout "library: the symlink"
only_ours library

# gpuleak run --output takes the same rule before the command starts: the
# stream and the FIFO are accepted (its end line says so: no file to list),
# the symlink refused in one line, status 2, the command not run.
rc=0; "$LAUNCHER" run --output /dev/fd/3 -- "$TPROG/scenarios" leak-runtime >w.out 2>w.err 3>lib.snap || rc=$?
expect_eq "$rc:$(cat w.err)" "0:gpuleak: snapshots go to /dev/fd/3 in place (not a regular file): none is kept to list" "run --output /dev/fd/3"
"$REPORT" lib.snap >/dev/null || fail "run --output /dev/fd/3: not a snapshot"
exec 7<>fifo
cat fifo >lib.snap 7>&- &
reader=$!
rc=0; "$LAUNCHER" run --output fifo -- "$TPROG/scenarios" leak-runtime >w.out 2>w.err || rc=$?
exec 7>&-
wait "$reader"
expect_eq "$rc:$(cat w.err)" "0:gpuleak: snapshots go to fifo in place (not a regular file): none is kept to list" "run --output fifo"
"$REPORT" lib.snap >/dev/null || fail "run --output fifo: not a snapshot"
rc=0; "$LAUNCHER" run --output link -- touch ran.txt >w.out 2>w.err || rc=$?
expect_eq "$rc:$(cat w.err)" "2:gpuleak: run: --output link: $link_refusal" "run --output link"
[ ! -e ran.txt ] || fail "run --output link: the command ran"
only_ours "gpuleak run"
echo "ok ($skipped device cases skipped: not root, or mknod refused)"
