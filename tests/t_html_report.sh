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

# the page's script: ticks.js, then every part of the page's function
# (report/render/html/js/, html_assets.c) by its number, none left out
python3 - h.html "$ROOT/report/render/html" <<'PY' || exit 1
import glob, os, re, sys
s = open(sys.argv[1], encoding="utf-8").read()
d = sys.argv[2]
m = re.search(r'</script>\n<script>\n(.*)</script>\n</body>\n</html>\n$', s, re.S)
parts = sorted(glob.glob(os.path.join(d, "js", "*.js")),
               key=lambda p: int(re.match(r"(\d+)_", os.path.basename(p)).group(1)))
want = "".join(open(p, encoding="utf-8").read() for p in [os.path.join(d, "ticks.js")] + parts)
if len(parts) < 2 or not m or m.group(1) != want:
    sys.exit("FAIL: the page's script is not ticks.js then %s" % " ".join(os.path.basename(p) for p in parts))
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

# ALLOCATION CALLS, TEMPORARY ALLOCATIONS and ALLOCATION LIFETIMES: their
# parts of the page (render/html/calls.c, report/sections/temporary.c and
# lifetimes.c) carry the rows, counts and bytes of the text report of the
# same snapshot.  One thread's 100 cudaMalloc/cudaFree pairs of 4096 bytes
# and one leak of 1000 (tests/programs/churn.c); each figure is formatted
# as the text writes it and must be one of its lines, then the numbers.
# The page shows every section whatever --sections says (sections_html).
mkdir ch && (cd ch && traced "$TPROG/churn" 1 100 >/dev/null) || fail "churn run"
snap=$(echo ch/gpuleak.*.snap)
"$REPORT" "$snap" >ch.txt
"$REPORT" --html ch.html "$snap" || fail "churn page"
"$REPORT" --html chs.html --sections leaks "$snap" || fail "churn page, --sections leaks"
data ch.html
data chs.html
python3 - ch.html.data.json ch.txt chs.html.data.json <<'PY' || exit 1
import json, sys
p, text, ps = json.load(open(sys.argv[1])), open(sys.argv[2]).read(), json.load(open(sys.argv[3]))
lines = text.split("\n")
def eq(a, b, what):
    if a != b:
        sys.exit("FAIL: %s: got %r, expected %r" % (what, a, b))
def c(n): return "{:,}".format(n)
def count(n, noun): return c(n) + " " + noun + ("" if n == 1 else "s")
def nbytes(n):  # the text's put_bytes: its size in binary units from 1 KiB
    x, u = n / 1024, 0
    while x >= 1023.95 and u < 5: x /= 1024; u += 1
    return count(n, "byte") + (" (%.1f %s)" % (x, ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"][u]) if n >= 1024 else "")
def top(x): return p["frames"][p["stacks"][x["stack"]][0]][0]
eq([k for k in ("calls", "temporary", "lifetimes") if k not in p], [], "the page's members missing")
def in_text(line, what):
    if line not in lines:
        sys.exit("FAIL: %s: %r is not a line of the text report" % (what, line))
k = p["calls"]
in_text("%s, %s freed, from %s, %s made in all" % (count(k["calls"], "call"), c(k["frees"]), count(k["stacks"], "stack"),
        nbytes(k["bytes"])), "calls: the first line")
for s in k["sites"]:
    in_text("%s (%s, %s), %s freed, %s in all" % (count(s["calls"], "call"), s["api"], s["kind"], c(s["frees"]),
            nbytes(s["bytes"])), "calls: a site's line")
eq((k["calls"], k["frees"], k["bytes"], k["stacks"], k["sampled"]), (101, 100, 410600, 2, False), "calls: totals")
eq([(s["calls"], s["frees"], s["bytes"], s["api"], s["kind"], top(s), "est_calls" in s) for s in k["sites"]],
   [(100, 100, 409600, "cudaMalloc", "device", "worker", False),
    (1, 0, 1000, "cudaMalloc", "device", "leak_in_thread", False)], "calls: sites")
eq("calls" in p["tables"], False, "calls: no longer in the leaks' tables")
t = p["temporary"]
in_text("%s of the %s in the history, %s in all" % (count(t["temporary"], "temporary allocation"), c(t["allocations"]),
        nbytes(t["bytes"])), "temporary: the total line")
for s in t["sites"]:
    in_text("%s of %s made there (%s, %s), %s in all" % (count(s["temporary"], "temporary allocation"),
            c(s["allocations"]), s["api"], s["kind"], nbytes(s["bytes"])), "temporary: a site's line")
eq((t["allocations"], t["temporary"], t["bytes"], t["stacks"]), (101, 100, 409600, 1), "temporary: totals")
eq([(s["temporary"], s["allocations"], s["bytes"], s["api"], s["kind"], top(s)) for s in t["sites"]],
   [(100, 100, 409600, "cudaMalloc", "device", "worker")], "temporary: sites")
L = p["lifetimes"]
row = lambda name, fc, fb, lc, lb: "  %-20s %10s %16s %10s %16s" % (name, c(fc), c(fb), c(lc), c(lb))
sec = lines[lines.index("ALLOCATION LIFETIMES"):]
table = [l for l in sec[:sec.index("")] if l.startswith("  ")]
eq([row(x["name"], x["freed"], x["freed_bytes"], x["live"], x["live_bytes"]) for x in L["classes"]] +
   [row("all", L["freed"]["count"], L["freed"]["bytes"], L["live"]["count"], L["live"]["bytes"])],
   table[1:], "lifetimes: the text's table")
eq((L["history"], L["freed"], L["live"], L["frees_before_history"]),
   (True, {"count": 100, "bytes": 409600}, {"count": 1, "bytes": 1000}, 0), "lifetimes: totals")
eq(sum(x["freed"] for x in L["classes"]), 100, "lifetimes: the classes' freed")
for key in "calls", "temporary", "lifetimes":
    eq(ps[key], p[key], "--sections leaks: the page's %s" % key)
PY
# Every time set (as t_report_lifetimes.sh): pairs living 5 us, 50 ms and
# 20 s, the leak an hour old; then the first pair's allocation out of the
# history, a free of an allocation made before it.
mkdir lt && (cd lt && traced "$TPROG/churn" 1 3 >/dev/null) || fail "churn, 3 pairs"
lifetimes_snapshots lt/gpuleak.*.snap
for s in set older; do "$REPORT" --html "$s.html" "$s.snap" || fail "$s page"; data "$s.html"; done
"$TPROG/snapgen" nohistory n.snap
"$REPORT" --html n.html n.snap || fail "no-history page"
data n.html
python3 - set.html.data.json older.html.data.json n.html.data.json <<'PY' || exit 1
import json, sys
s, o, n = (json.load(open(f)) for f in sys.argv[1:4])
def eq(a, b, what):
    if a != b:
        sys.exit("FAIL: %s: got %r, expected %r" % (what, a, b))
eq([k for k in ("temporary", "lifetimes") for x in (s, o, n) if k not in x], [], "the pages' members missing")
rows = lambda L: [(x["name"], x["min_ns"], x["max_ns"], x["freed"], x["freed_bytes"], x["live"], x["live_bytes"])
                  for x in L["classes"]]
eq(rows(s["lifetimes"]), [("under 10 us", 0, 10**4, 1, 4096, 0, 0), ("10 ms - 100 ms", 10**7, 10**8, 1, 4096, 0, 0),
                          ("10 s - 100 s", 10**10, 10**11, 1, 4096, 0, 0),
                          ("1000 s - 10000 s", 10**12, 10**13, 0, 0, 1, 1000)], "times set: classes")
eq((s["lifetimes"]["freed"], s["lifetimes"]["live"], s["lifetimes"]["frees_before_history"]),
   ({"count": 3, "bytes": 12288}, {"count": 1, "bytes": 1000}, 0), "times set: totals")
eq((o["lifetimes"]["freed"], o["lifetimes"]["frees_before_history"]), ({"count": 2, "bytes": 8192}, 1),
   "a free from before the history")
eq(n["lifetimes"], {"history": False, "frees_before_history": 0, "freed": {"count": 0, "bytes": 0},
                    "live": {"count": 7, "bytes": n["lifetimes"]["live"]["bytes"]},
                    "classes": n["lifetimes"]["classes"]}, "no history: lifetimes")
eq(sum(x["live"] for x in n["lifetimes"]["classes"]), 7, "no history: live classes")
eq(n["temporary"], {"allocations": 0, "temporary": 0, "bytes": 0, "stacks": 0, "sites": []}, "no history: temporary")
PY

# Sampled (GPULEAK_MODE=light): a stack's calls are also what its sampled
# calls stand for, the text's "~" figures; the calls of no stack were not
# sampled and have none (the text: "not sampled: in the estimates above").
mkdir lc && (cd lc && GPULEAK_MODE=light GPULEAK_SAMPLE_BYTES=64K GPULEAK_SAMPLE_SEED=1 \
    traced "$TPROG/churn" 2 100 >/dev/null) || fail "churn, light"
snap=$(echo lc/gpuleak.*.snap)
"$REPORT" "$snap" >lc.txt
"$REPORT" --json "$snap" >lc.json
"$REPORT" --html lc.html "$snap" || fail "light page"
data lc.html
python3 - lc.html.data.json lc.txt lc.json <<'PY' || exit 1
import json, sys
p, lines, r = json.load(open(sys.argv[1])), open(sys.argv[2]).read().split("\n"), json.load(open(sys.argv[3]))
def eq(a, b, what):
    if a != b:
        sys.exit("FAIL: %s: got %r, expected %r" % (what, a, b))
def c(n): return "{:,}".format(n)
eq("calls" in p, True, "light: the page's calls member")
k, rk = p["calls"], r["allocation_calls"]
eq((k["calls"], k["frees"], k["bytes"], k["sampled"]), (rk["calls"], rk["frees"], rk["bytes"], True), "light: totals")
eq(len(k["sites"]), len(rk["sites"]), "light: sites")
unsampled = 0
for s, rs in zip(k["sites"], rk["sites"]):
    eq((s["calls"], s["frees"], s["bytes"]), (rs["calls"], rs["frees"], rs["bytes"]), "light: a site's sampled calls")
    if not rs["frames"]:  # the calls of no stack
        unsampled += 1
        eq("est_calls" in s, False, "light: estimates of the unsampled calls")
        continue
    eq((s["est_calls"], s["est_frees"], s["est_bytes"]),
       (rs["estimated_calls"], rs["estimated_frees"], rs["estimated_bytes"]), "light: a site's estimates")
    want = "~%s call%s (%s, %s), ~%s freed, ~%s bytes" % (c(s["est_calls"]), "" if s["est_calls"] == 1 else "s",
                                                          s["api"], s["kind"], c(s["est_frees"]), c(s["est_bytes"]))
    if not any(l.startswith(want) for l in lines):
        sys.exit("FAIL: light: no text line %r..." % want)
eq(unsampled, 1, "light: one site of unsampled calls")
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
