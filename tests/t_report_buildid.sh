#!/usr/bin/env bash
# Modules that cannot be trusted are never symbolized: a build-id that does
# not match, a binary replaced after the run, a missing file.  Frames show
# module+0xOFFSET and the report carries a warning naming the module.
source "$ROOT/tests/lib.sh"
off_frames() { # JSON: all frames of the first leak are unsymbolized, in module snapgen
    python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
fr = d["leaks"][0]["frames"]
assert len(fr) == 3, fr
for f in fr:
    assert f["function"] is None and f["file"] is None and f["line"] == 0, f
    assert f["module"] == "snapgen" and f["offset"] > 0, f
PY
}

# 1. build-id in the snapshot patched
"$TPROG/snapgen" leaks bad.snap --bad-build-id > /dev/null
"$REPORT" bad.snap > out.txt || fail "exit $?"
grep -qE '^warning: module .*/snapgen: build-id [0-9a-f]+ does not match the snapshot.s [0-9a-f]+' out.txt || fail "no mismatch warning"
sed -n '/^LEAKS$/,/^$/p' out.txt | grep -qE '^    #0 snapgen\+0x[0-9a-f]+$' || fail "frame not module+offset"
grep -q 'alloc_weights' out.txt && fail "a name from the mismatched module was shown"
"$REPORT" --json bad.snap > out.json
off_frames out.json || fail "JSON frames"
expect_eq "$(jget out.json 'd["modules"][0]["status"]')" "build-id-mismatch" "module status"
expect_eq "$(jget out.json 'len([w for w in d["warnings"] if "does not match" in w])')" 1 "JSON warning"

# 2. a copy of the generator writes the snapshot, then the copy is replaced
#    by a different binary at the same path
cp "$TPROG/snapgen" ./snapgen
./snapgen leaks copy.snap > /dev/null
"$REPORT" --json copy.snap > good.json
expect_eq "$(jget good.json 'd["leaks"][0]["frames"][0]["function"]')" "alloc_weights" "copy symbolizes before replacement"
cp "$TPROG/snapfuzz" ./snapgen
"$REPORT" --json copy.snap > out.json
off_frames out.json || fail "JSON frames after replacement"
expect_eq "$(jget out.json 'd["modules"][0]["status"]')" "build-id-mismatch" "status after replacement"

# 3. module file missing
"$TPROG/snapgen" leaks miss.snap --missing-module > /dev/null
"$REPORT" miss.snap > out.txt
grep -q '^warning: module /nonexistent/dir/snapgen: No such file or directory' out.txt || fail "missing warning"
sed -n '/^LEAKS$/,/^$/p' out.txt | grep -qE '^    #1 snapgen\+0x[0-9a-f]+$' || fail "missing: frame"
"$REPORT" --json miss.snap > out.json
expect_eq "$(jget out.json 'd["modules"][0]["status"]')" "missing" "missing status"

# 4. the binary moved after the run: named in a warning, frames module+offset
mkdir -p old new
cp "$TPROG/snapgen" old/snapgen
old/snapgen leaks moved.snap > /dev/null
mv old/snapgen new/snapgen
"$REPORT" moved.snap > out.txt
grep -q "^warning: module $PWD/old/snapgen: No such file or directory; its frames are shown as module+offset" out.txt || fail "moved warning: $(grep warning out.txt)"
sed -n '/^LEAKS$/,/^$/p' out.txt | grep -qE '^    #0 snapgen\+0x[0-9a-f]+$' || fail "moved: frame"
"$REPORT" --json moved.snap > out.json
off_frames out.json || fail "moved: JSON frames"
echo ok
