#!/usr/bin/env bash
# A small snapshot (every record type) cut short: the reporter must exit 2
# with exactly one stderr line "gpuleak-report: FILE: ... (at offset N)" and
# nothing on stdout, never crash.  The command line is run on every 5th cut
# and the last 16 (a process per cut: every cut would take minutes under
# ASan); the in-process driver (snapfuzz) then checks every cut of this and
# a large snapshot, plus random byte mutations.
source "$ROOT/tests/lib.sh"
"$TPROG/snapgen" small small.snap
"$REPORT" small.snap > /dev/null || fail "the full small snapshot must be valid"
size=$(stat -c %s small.snap)
[ "$size" -gt 300 ] || fail "small snapshot unexpectedly small ($size)"
for ((i = 0; i < size; i++)); do
    [ $((i % 5)) -eq 0 ] || [ "$i" -ge $((size - 16)) ] || continue
    head -c "$i" small.snap > cut.snap
    rc=0
    "$REPORT" cut.snap > out.txt 2> err.txt || rc=$?
    [ "$rc" -eq 2 ] || fail "cut at $i: exit $rc, expected 2 ($(cat err.txt))"
    [ "$(wc -l < err.txt)" -eq 1 ] || fail "cut at $i: stderr has $(wc -l < err.txt) lines: $(cat err.txt)"
    grep -qE '^gpuleak-report: cut\.snap: .+ \(at offset [0-9]+\)$' err.txt || fail "cut at $i: message: $(cat err.txt)"
    [ ! -s out.txt ] || fail "cut at $i: wrote a report"
done
"$TPROG/snapfuzz" small.snap 20000 || fail "snapfuzz small"
"$TPROG/snapgen" leaks leaks.snap > /dev/null
"$TPROG/snapfuzz" leaks.snap 5000 || fail "snapfuzz leaks"
echo ok
