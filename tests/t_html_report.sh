#!/usr/bin/env bash
# --html without a browser: the page is one self-contained file (a Content
# Security Policy that forbids every fetch, no external script, style, image
# or font), its embedded data carries the numbers of the JSON report, strings
# from the snapshot cannot break out of the <script>, several snapshots add
# the growth per stack, and usage errors are caught.  The page itself is
# driven in Chromium by t_html_browser.sh.
source "$ROOT/tests/lib.sh"
"$TPROG/snapgen" history h.snap
"$REPORT" --html h.html h.snap || fail "exit $?"
"$REPORT" --json h.snap > h.json
[ -s h.html ] || fail "empty page"

# self-contained: nothing to fetch, ever
python3 - h.html <<'PY' || exit 1
import re, sys
s = open(sys.argv[1], encoding="utf-8").read()
bad = []
csp = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)"', s)
if not csp or "default-src 'none'" not in csp.group(1) or "connect-src" in csp.group(1):
    bad.append("no CSP forbidding requests: %r" % (csp and csp.group(1)))
for pat in (r'<(?:script|link|img|iframe|object|embed|audio|video|source)\b[^>]*\s(?:src|href)\s*=',
            r'@import', r'url\(\s*["\']?(?!#)', r'\bfetch\(', r'XMLHttpRequest', r'WebSocket', r'import\(',
            r'https?://(?!www\.w3\.org/2000/svg)'):
    m = re.search(pat, s)
    if m:
        bad.append("found %r: ...%s..." % (pat, s[max(0, m.start() - 40):m.end() + 40]))
if s.count("<script") != 2:
    bad.append("expected exactly the data and the code <script> elements")
if bad:
    sys.exit("FAIL: " + "; ".join(bad))
PY

# the embedded data: the JSON report's numbers
data() { python3 - "$1" <<'PY'
import json, re, sys
s = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<script type="application/json" id="gl-data">(.*?)</script>', s, re.S)
if "<" in m.group(1):
    sys.exit("FAIL: '<' inside the embedded data")
json.dump(json.loads(m.group(1)), open(sys.argv[1] + ".data.json", "w"))
PY
}
data h.html
python3 - h.html.data.json h.json <<'PY' || exit 1
import json, sys
p, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
def eq(a, b, what):
    if a != b:
        sys.exit("FAIL: %s: got %r, expected %r" % (what, a, b))
eq(p["format"], "gpuleak-html", "format")
eq([(d["device"], d["peak_bytes"], d["peak_seq"]) for d in p["devices"]],
   [(d["device"], d["peak_bytes"], d["peak_seq"]) for d in r["devices"]], "device peaks")
eq(p["summary"]["leaked_bytes"], r["leak_summary"]["leaked_bytes"], "leaked bytes")
t, rt = p["timeline"], r["timeline"]
eq((t["first_seq"], t["last_seq"], t["t0"], t["t1"]), (rt["first_seq"], rt["last_seq"], rt["start_ns"], rt["end_ns"]), "window")
for d, rd in zip(t["devices"], rt["devices"]):
    eq((d["device"], d["start_bytes"], d["max_bytes"], d["max_seq"], d["raw"]),
       (rd["device"], rd["start_bytes"], rd["max_bytes"], rd["max_seq"], True), "series head")
    eq(d["last"], rd["bytes"], "raw series")
    eq([x + t["t0"] for x in d["t"]], rd["time_ns"], "raw times")
    # the event behind each point: its seq and size
    evs = [t["events"][i] for i in d["ev"]]
    eq([e[0] for e in evs][:3], [2, 3, 5], "events of the first points")
    eq([e[2] for e in evs][:3], [4 << 20, 8 << 20, 16 << 20], "their sizes")
eq([(m[0], m[2], m[4]) for m in t["marks"]], [(5, "warmup", 1), (5, "epoch 1", 4), (3, None, 8), (5, "done", 15)], "marks")
# flame graphs: the roots hold the totals, children never exceed parents
def walk(n, path):
    kids = n[2] if len(n) > 2 else []
    if sum(k[1] for k in kids) > n[1]:
        sys.exit("FAIL: children exceed their parent at %r" % path)
    for k in kids:
        walk(k, path + [p["frames"][k[0]][0]])
walk(p["flame"]["leaks"], [])
walk(p["flame"]["peak"], [])
eq(p["flame"]["leaks"][1], r["leak_summary"]["leaked_bytes"], "leak flame total")
eq(p["flame"]["peak"][1], sum(c["bytes"] for d in r["devices"] for c in d["peak_composition"]), "peak flame total")
leaf = p["flame"]["peak"]
while len(leaf) > 2:
    leaf = leaf[2][0]
eq(p["frames"][leaf[0]][0], "tie_b", "largest peak consumer's allocating frame")
# tables
eq([(x["bytes"], x["count"], x["kind"]) for x in p["tables"]["leaks"]],
   [(x["bytes"], x["count"], x["kind"]) for x in r["leaks"]], "leak rows")
eq([p["frames"][p["stacks"][x["stack"]][0]][0] for x in p["tables"]["leaks"]],
   [x["frames"][0]["function"] for x in r["leaks"]], "leak stacks")
eq([(x["bytes"], x["count"]) for x in p["tables"]["peak"]],
   [(x["bytes"], x["count"]) for d in r["devices"] for x in d["peak_composition"]], "peak rows")
# address map: cells of 2 MiB pages with the page occupancy
f, m = r["fragmentation"]["devices"][0], p["addrmap"][0]
eq((m["pages"], m["holes"], m["hole_bytes"], m["largest_hole"], m["unit"]),
   (f["pages"], f["holes"], f["hole_bytes"], f["largest_hole"], 2 << 20), "map numbers")
eq(m["b"], [2 << 20, 2 << 20, 256 << 10, 1 << 20, 0, 64 << 10], "live bytes per page")
eq(sum(1 for n in m["n"] if n), f["pages"], "touched pages")
eq(sum(m["b"]), f["address_bytes"], "bytes in the cells")
eq(p["growth"], None, "no growth for one snapshot")
PY

# several snapshots: growth per stack, in the diff's order
"$TPROG/snapgen" diffset .
"$REPORT" --html g.html a.snap b.snap c.snap || fail "multi exit $?"
"$REPORT" --json diff a.snap b.snap c.snap > d.json
data g.html
python3 - g.html.data.json d.json <<'PY' || exit 1
import json, sys
p, d = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
g = p["growth"]
if [s["path"] for s in g["snapshots"]] != ["a.snap", "b.snap", "c.snap"]:
    sys.exit("FAIL: snapshots %r" % g["snapshots"])
got = [(r["bytes"], r["growth"], r["suspected_leak"], p["frames"][p["stacks"][r["stack"]][0]][0]) for r in g["rows"]]
want = [(s["bytes"], s["growth"], s["suspected_leak"], s["frames"][0]["function"]) for s in d["stacks"]]
if got != want:
    sys.exit("FAIL: growth rows %r, expected %r" % (got, want))
if not any(r["suspected_leak"] for r in g["rows"]) or p["snapshot"]["path"] != "c.snap":
    sys.exit("FAIL: suspected leak / last snapshot")
PY
"$REPORT" --html g2.html diff a.snap c.snap || fail "diff keyword"
# snapshots of different processes are never drawn as a series: refused,
# one line, status 2, no page (a merge page compares them)
rc=0; "$REPORT" --html g3.html a.snap other.snap 2> g3.err || rc=$?
expect_eq "$rc:$(cat g3.err)" "2:gpuleak-report: --html: the snapshots come from 2 different processes (rank 0 pid 4242 on testhost, rank 0 pid 5555 on testhost); growth is measured between snapshots of one process: compare processes with '--html OUT.html merge'" "html of two processes"
[ ! -e g3.html ] || fail "a page was written for two processes"
# through the launcher, the hint names the launcher's command: "gpuleak
# html OUT.html merge", "gpuleak merge" (not the reporter's own syntax)
refused="the snapshots come from 2 different processes (rank 0 pid 4242 on testhost, rank 0 pid 5555 on testhost); growth is measured between snapshots of one process: compare processes with"
rc=0; "$LAUNCHER" html g3.html a.snap other.snap 2> g3.err || rc=$?
expect_eq "$rc:$(cat g3.err)" "2:gpuleak-report: --html: $refused 'gpuleak html OUT.html merge SNAP...'" "gpuleak html of two processes"
rc=0; "$LAUNCHER" diff a.snap other.snap > g3.out 2> g3.err || rc=$?
expect_eq "$rc:$(cat g3.err):$(wc -c < g3.out)" "2:gpuleak-report: diff: $refused 'gpuleak merge', or two runs of one program stack by stack with 'gpuleak diff --across-runs':0" "gpuleak diff of two processes"
rc=0; "$LAUNCHER" diff --html g3.html a.snap other.snap 2> g3.err || rc=$?
expect_eq "$rc:$(cat g3.err)" "2:gpuleak-report: --html: $refused 'gpuleak merge --html OUT.html SNAP...'" "gpuleak diff --html of two processes"
rc=0; "$LAUNCHER" report --html g3.html a.snap other.snap 2> g3.err || rc=$?
expect_eq "$rc:$(cat g3.err)" "2:gpuleak-report: --html: $refused '--html OUT.html merge'" "gpuleak report: the reporter's syntax"
[ ! -e g3.html ] || fail "a page was written for two processes"

# growth between two snapshots of one run: the teardown leak in between
mkdir tg && (cd tg && GPULEAK_OUTPUT=end.snap traced "$TPROG/driver_lifecycle" ctx mid.snap) || fail "mid-run teardown"
"$REPORT" --html tg.html tg/mid.snap tg/end.snap || fail "teardown growth exit $?"
data tg.html
python3 - tg.html.data.json <<'PY' || exit 1
import json, sys
p = json.load(open(sys.argv[1]))
g = p["growth"]
got = [(r["kind"], r["api"], r["teardown"], r["rule"], r["bytes"], r["count"], r["change"],
        p["frames"][p["stacks"][r["stack"]][0]][0]) for r in g["teardown"]]
want = [("device", "cuMemAlloc_v2", "cuDevicePrimaryCtxReset_v2", None, [0, 6000], [0, 1], 6000, "alloc_in_ctx")]
if got != want or g["frees"] != []:
    sys.exit("FAIL: growth teardown rows %r, frees %r; expected %r, []" % (got, g["frees"], want))
PY

# strings that need escaping stay inside the data
"$TPROG/snapgen" weird w.snap
"$REPORT" --html w.html w.snap || fail "weird exit"
data w.html
grep -c '</script>' w.html | grep -qx 2 || fail "a string closed the script element"

# usage
set +e
"$REPORT" --html x.html --json h.snap 2>err; expect_eq $? 2 "--html with --json"
"$REPORT" --html x.html --output y h.snap 2>err; expect_eq $? 2 "--html with --output"
"$REPORT" --html x.html 2>err; expect_eq $? 2 "--html without a snapshot"
"$REPORT" --torch-snapshot x.pickle merge a.snap b.snap 2>err; expect_eq $? 2 "--torch-snapshot with merge"
"$REPORT" --html /nonexistent/dir/x.html h.snap 2>err; expect_eq $? 1 "unwritable page"
set -e
"$REPORT" --help >help.txt || fail "--help: exit" # not `| grep -q`: SIGPIPE (t_report_cli)
grep -q -- '--html FILE' help.txt || fail "help"
echo ok
