#!/usr/bin/env bash
# Snapshots that are not regular files: the header is checked before the
# rest is read, and what is read from a pipe, a FIFO or a device is bounded
# (`gpuleak-report /dev/zero` read until memory ran out).  A valid snapshot
# through a FIFO or a pipe (/dev/stdin) still gives the same report as the
# file.
source "$ROOT/tests/lib.sh"
"$TPROG/snapgen" leaks l.snap >/dev/null
"$REPORT" --json l.snap > want.json || fail "report of the file"

# 64 MiB of address space is enough to reject anything here; without the
# bound the reader ran into it (or, unlimited, into the machine's memory).
limited() {
    if [ -n "$GL_SAN" ]; then guard 60 "$@"; return; fi  # the sanitizer reserves terabytes
    ( ulimit -v 65536; guard 60 "$@" )
}
# rejected INPUT MESSAGE: exit 2, nothing on stdout, MESSAGE as the one line on stderr
rejected() {
    local input=$1 want=$2 rc=0
    limited "$REPORT" "$input" > out.txt 2> err.txt < <(cat "${STDIN:-/dev/null}") || rc=$?
    expect_eq "$rc" 2 "$input: exit status"
    [ ! -s out.txt ] || fail "$input: wrote a report: $(head -3 out.txt)"
    expect_eq "$(cat err.txt)" "gpuleak-report: $input: $want" "$input: message"
}

rejected /dev/zero "not a gpuleak snapshot (bad magic) (at offset 0)"

# a FIFO fed garbage: the writer is not waited for
mkfifo garbage.fifo
( head -c 100000000 /dev/urandom > garbage.fifo 2>/dev/null || true ) &
rejected garbage.fifo "not a gpuleak snapshot (bad magic) (at offset 0)"
wait

# a 200 MB regular file that is not a snapshot: 16 bytes are read
truncate -s 200M big.bin
rejected big.bin "not a gpuleak snapshot (bad magic) (at offset 0)"

# a valid header, then endless zeros: the first record is no PROCESS
mkfifo z.fifo
( { head -c 16 l.snap; cat /dev/zero; } > z.fifo 2>/dev/null || true ) &
rejected z.fifo "first record is type 0, not PROCESS (at offset 16)"
wait

# a valid snapshot, then endless zeros: read up to the END record and a look past it
mkfifo t.fifo
( { cat l.snap; cat /dev/zero; } > t.fifo 2>/dev/null || true ) &
size=$(stat -c %s l.snap)
rejected t.fifo "record of type 0 after the END record (at offset $size)"
wait

# a record that claims 1 TiB, from a pipe (STDIN: what `rejected` pipes in):
# refused before it is read
# (the file header and the PROCESS record's header, its length set by name)
snap_set l.snap long.snap PROCESS -1 length $((1 << 40))
head -c $(snap_layout | awk '$2 == ":size" && ($1 == "FILE_HEADER" || $1 == "RECORD_HEADER") { n += $3 } END { print n }') \
    long.snap > huge.bin
STDIN=huge.bin rejected /dev/stdin \
    "not a regular file, and more than 1024 MiB before its END record (at offset 16): not read further (a snapshot that large must be a regular file)"

# valid snapshots through a FIFO and a pipe: the same report as the file
mkfifo ok.fifo
( cat l.snap > ok.fifo ) &
limited "$REPORT" --json ok.fifo > fifo.json || fail "FIFO: exit $?"
wait
sed 's|"ok.fifo"|"l.snap"|' fifo.json | cmp -s - want.json || fail "FIFO: report differs from the file's"
cat l.snap | limited "$REPORT" --json /dev/stdin > pipe.json || fail "pipe: exit $?"
sed 's|"/dev/stdin"|"l.snap"|' pipe.json | cmp -s - want.json || fail "pipe: report differs from the file's"
# and diff and merge read pipes too
snap_set l.snap l2.snap PROCESS 0 pid 1 # another process: merge keeps one snapshot per process
cat l2.snap | limited "$REPORT" merge /dev/stdin l.snap > merge.txt || fail "merge from a pipe: exit $?"
grep -q '^==== gpuleak merge: 2 snapshots ====$' merge.txt || fail "merge from a pipe"
echo ok
