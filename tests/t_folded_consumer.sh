#!/usr/bin/env bash
# --folded is read the way flamegraph.pl reads it: each line must match its
# pattern /^(.*)\s+?(\d+(?:\.\d*)?)$/ (flamegraph.pl silently ignores lines
# that do not, so a bad line would be lost bytes), the count is an integer,
# the stack splits on ';' into non-empty frames with the root first
# ("device_N:KIND" for leaks, "device_N" for peak; "host" for host memory),
# and the counts add up to the JSON report's totals.  inferno and speedscope
# take the last space-separated token as the count: checked the same way.
# Snapshots: known leaks, caches (C++ names with spaces and commas), weird
# strings, the history scenario, Python frames.
source "$ROOT/tests/lib.sh"
cat > consume.py <<'PY'
import json, re, sys
folded, report, which = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3]
LINE = re.compile(r"^(.*)\s+?(\d+(?:\.\d*)?)$")      # flamegraph.pl
def fail(m):
    sys.exit("FAIL: %s: %s" % (folded, m))
total, stacks, n = 0, {}, 0
data = open(folded, "rb").read()
try:
    text = data.decode("utf-8")
except UnicodeDecodeError as e:
    fail("not UTF-8: %s" % e)
if data and not data.endswith(b"\n"):
    fail("last line not terminated")
for ln in text.split("\n")[:-1] if text else []:
    n += 1
    m = LINE.match(ln)
    if not m:
        fail("flamegraph.pl would ignore line %d: %r" % (n, ln))
    stack, count = m.group(1), m.group(2)
    if not re.fullmatch(r"[0-9]+", count):
        fail("count is not an integer: %r" % ln)
    # inferno / speedscope: the last space-separated token
    head, _, tail = ln.rpartition(" ")
    if tail != count or head != stack:
        fail("last token is not the count: %r" % ln)
    if any(c in stack for c in "\t\r\n\x00") or stack != stack.strip():
        fail("whitespace around or inside the stack: %r" % ln)
    frames = stack.split(";")
    if any(f == "" for f in frames):
        fail("empty frame (stray ';'): %r" % ln)
    root = frames[0]
    ok = re.fullmatch(r"(device_\d+|host)(:[a-z-]+)?", root)
    if not ok or (which == "leaks") != (":" in root):
        fail("root frame %r" % root)
    if len(frames) < 2:
        fail("no frame under the root: %r" % ln)
    total += int(count)
    stacks[stack] = stacks.get(stack, 0) + int(count)
if which == "leaks":
    want_total = report["leak_summary"]["leaked_bytes"]
    want_lines = report["leak_summary"]["groups"]
else:
    want_total = sum(c["bytes"] for d in report["devices"] for c in d["peak_composition"])
    want_lines = sum(len(d["peak_composition"]) for d in report["devices"])
if total != want_total:
    fail("counts add up to %d, the JSON says %d" % (total, want_total))
if n != want_lines:
    fail("%d lines for %d groups" % (n, want_lines))
print("ok: %s %d lines, %d bytes, %d distinct stacks" % (which, n, total, len(stacks)))
PY
check() { # SNAP
    "$REPORT" --json "$1" > "$1.json"
    for w in leaks peak; do
        "$REPORT" --folded $w "$1" > "$1.$w.folded" || fail "$1: --folded $w exit $?"
        python3 consume.py "$1.$w.folded" "$1.json" $w || fail "$1 $w"
    done
}
"$TPROG/snapgen" leaks l.snap >/dev/null
check l.snap
"$TPROG/snapgen" caches c.snap
check c.snap
"$TPROG/snapgen" weird w.snap
check w.snap
"$TPROG/snapgen" history h.snap
check h.snap
# the leaks scenario holds host memory: its root is "host:KIND"
grep -q '^host:host-pinned;' l.snap.leaks.folded || fail "host root"
# the history's peak: exact lines
expect_eq "$(sed 's/([^)]*)//g' h.snap.peak.folded | sort)" \
"$(printf '%s\n' 'device_0;capture;load_model;alloc_weights 4194304' \
                 'device_0;capture;tie_b 16777216' \
                 'device_0;capture;train_loop;alloc_activations 8388608' | sort)" "peak lines"
if [ -z "$GL_SAN" ]; then
    export FAKECUDA_RT=$FAKECUDA/libcudart.so.13 PYTHONPATH=$TPROG/python
    GPULEAK_OUTPUT=py.snap traced python3 "$ROOT/tests/programs/py_frames.py" paths
    check py.snap
    grep -q ';alloc ' py.snap.leaks.folded || fail "python frame names in the folded stacks"
fi
echo ok
