#!/usr/bin/env bash
# Command line: --help/--version, usage errors (exit 2, one line), option
# validation, --output, a newer writer's snapshot (unknown records, longer
# entries) read with warnings, and strings needing escapes in text and JSON.
source "$ROOT/tests/lib.sh"
# (into a file: `| grep -q` stops reading at its match, and a --help longer
# than the pipe's first write then dies of SIGPIPE, failing under pipefail)
"$REPORT" --help >help.txt || fail "--help: exit"
grep -q '^usage: gpuleak-report' help.txt || fail "--help"
"$REPORT" --version | grep -qE '^gpuleak-report [0-9.]+ \(snapshot format v1\)$' || fail "--version"
# --list-sections (what the completion asks): --help's names, one a line
# (t_doc_sections); a failed write is status 1 and one line.
expect_eq "$("$REPORT" --list-sections | paste -sd,)" \
    "$("$REPORT" --help | grep -A1 -- '--sections LIST' | tail -1 | tr -d ' ')" "--list-sections"
rc=0; "$REPORT" --list-sections >/dev/full 2>err.txt || rc=$?
expect_eq "$rc:$(cat err.txt)" "1:gpuleak-report: --list-sections: cannot write: No space left on device" \
    "--list-sections to a full device"
"$TPROG/snapgen" leaks l.snap > /dev/null
usage_err() { # ARGS...: exit 2, one line on stderr, nothing on stdout
    local rc=0
    "$REPORT" "$@" > out.txt 2> err.txt || rc=$?
    [ "$rc" -eq 2 ] || fail "'$*': exit $rc"
    [ "$(wc -l < err.txt)" -eq 1 ] || fail "'$*': stderr: $(cat err.txt)"
    grep -q '^gpuleak-report: ' err.txt || fail "'$*': $(cat err.txt)"
    [ ! -s out.txt ] || fail "'$*': stdout not empty"
}
usage_err
usage_err l.snap l.snap
usage_err --bogus l.snap
usage_err --top l.snap
usage_err --top 0 l.snap
usage_err --top -3 l.snap
usage_err --top 3x l.snap
usage_err --min-bytes abc l.snap
usage_err --min-bytes 99999999999999999999999 l.snap
usage_err l.snap --output
rc=0; "$REPORT" --output /nonexistent/dir/x l.snap 2> err.txt || rc=$?
expect_eq "$rc" 1 "unwritable --output exit"
"$REPORT" --output o.txt --top 1 l.snap || fail "--output text"
expect_eq "$(grep -c 'not freed at exit' o.txt)" 1 "--top 1 text"
grep -q '^(7 more groups, 927,708 bytes (906.0 KiB) in 11 allocations, not shown' o.txt || fail "hidden line"

# non-final snapshot wording
"$TPROG/snapgen" leaks s.snap --reason 1 > /dev/null
"$REPORT" s.snap | grep -q 'live at the snapshot (on signal)$' || fail "on-signal wording"
expect_eq "$(jget <("$REPORT" --json s.snap) '[d["snapshot"]["reason"], d["snapshot"]["final"]]')" '["signal", false]' "reason json"

# forward compatibility
"$TPROG/snapgen" future f.snap
"$REPORT" f.snap > f.txt || fail "future snapshot rejected"
grep -q '^warning: 2 record(s) of unknown type skipped' f.txt || fail "unknown-record warning"
grep -q '^warning: 3 entries carry fields' f.txt || fail "long-entry warning"
grep -q 'unknown (kind 99) memory on device 0 (unknown api 999)' f.txt || fail "unknown kind/api"
"$REPORT" --json f.snap > f.json
expect_eq "$(jget f.json '[(l["kind"], l["kind_code"], l["api"], l["api_code"]) for l in d["leaks"]]')" \
    '[["device", 0, "cudaMalloc", 1], ["unknown", 99, "unknown", 999]]' "future leaks"

# escaping
"$TPROG/snapgen" weird w.snap
"$REPORT" w.snap > w.txt || fail "weird text"
grep -qF "host host\\x09with\\x1b[31mescape" w.txt || fail "text escapes host"
grep -qF "command:  ./weird 'q\"b\\s\\x0a\\x09\\x01\\x7f' '\\xff|é|\\xe2\\x82|end'" w.txt || fail "text escapes argv"
LC_ALL=C grep -q $'\x1b' w.txt && fail "raw ESC in text output"
"$REPORT" --json w.snap > w.json || fail "weird json"
python3 - w.json <<'PY' || fail "JSON escapes"
import json, sys
raw = open(sys.argv[1], "rb").read()
raw.decode("utf-8")  # strictly valid UTF-8
assert not any(b < 0x20 and b not in (0x0a,) for b in raw), "raw control byte"
d = json.loads(raw)
s = d["snapshot"]
assert s["argv"] == ["./weird", 'q"b\\s\n\t\x01\x7f', "\ufffd|\u00e9|\ufffd\ufffd|end"], s["argv"]
assert s["host"] == "host\twith\x1b[31mescape"
assert d["modules"][0]["path"] == "/a\x00b\n" and d["modules"][0]["status"] == "missing"
fr = d["leaks"][0]["frames"]
assert fr[0]["module"] == "a" and fr[0]["offset"] == 0x123 and fr[0]["function"] is None
assert fr[1]["module"] is None and fr[1]["address"] == 0x99999 and fr[1]["offset"] == 0
PY
echo ok
