#!/usr/bin/env bash
# Deliberately broken snapshots (bad magic, version, hostile counts and
# lengths, stack id problems, records after END, ...): exit 2, exactly one
# stderr line naming the problem and its offset.
source "$ROOT/tests/lib.sh"
check() { # KIND EXPECTED-SUBSTRING
    "$TPROG/snapgen" corrupt "$1" "$1.snap"
    local rc=0
    "$REPORT" "$1.snap" > out.txt 2> err.txt || rc=$?
    [ "$rc" -eq 2 ] || fail "$1: exit $rc, expected 2"
    [ "$(wc -l < err.txt)" -eq 1 ] || fail "$1: stderr: $(cat err.txt)"
    grep -qE "^gpuleak-report: $1\\.snap: .*\\(at offset [0-9]+\\)\$" err.txt || fail "$1: format: $(cat err.txt)"
    grep -qF -- "$2" err.txt || fail "$1: expected '$2' in: $(cat err.txt)"
    [ ! -s out.txt ] || fail "$1: wrote a report"
}
check magic "bad magic"
check version "unsupported snapshot version 2"
check flags "unsupported file header flags"
check hugecount "count 4294967295 needs at least"
check hugelength "record length 18446744073709551615 exceeds"
check hugestring "length 4294967295 exceeds limit"
check hugeargc "argc 4294967280 exceeds limit"
check hugedepth "stack depth 2147483647 exceeds limit"
check badstack "undefined stack id 999"
check peakstack "undefined stack id 5"
check eventstack "undefined stack id 6"
check dupstack "duplicate stack id 1"
check stack0 "reserved id 0"
check afterend "after the END record"
check trailing "after the END record"
check noend "no END record"
check endcount "END record counts"
check endoffset "END record says it is at offset"
check notfirst "not PROCESS"
check twoprocess "second PROCESS"
check shortentry "count 1 needs at least 56 bytes, record has 40"
check oddlength "not a multiple"
check buildidlen "build-id length 65"
check baddevice "invalid device -7"
check modrange "above end"
check shortprocess "PROCESS record too short"
check twodevices "second DEVICES record"
# every kind the generator knows is covered above
n=$("$TPROG/snapgen" corrupt list | wc -l)
expect_eq "$(grep -c '^check [a-z]' "$0")" "$n" "corruption kinds covered"
# not a file / empty file / a directory
rc=0; "$REPORT" missing.snap 2> err.txt || rc=$?
expect_eq "$rc" 2 "missing file exit"; expect_eq "$(wc -l < err.txt)" 1 "missing file lines"
grep -q '^gpuleak-report: missing.snap: cannot open' err.txt || fail "missing file: $(cat err.txt)"
: > empty.snap; rc=0; "$REPORT" empty.snap 2> err.txt || rc=$?
expect_eq "$rc" 2 "empty file exit"; grep -q 'too short' err.txt || fail "empty: $(cat err.txt)"
mkdir d.snap; rc=0; "$REPORT" d.snap 2> err.txt || rc=$?
expect_eq "$rc" 2 "directory exit"; expect_eq "$(wc -l < err.txt)" 1 "directory lines"
echo ok
