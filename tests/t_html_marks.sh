# The HTML timeline's snapshot marks (issue 35 item 9, "Timeline"): a page
# showed a mark labelled "snapshot" at 0.05 s for a snapshot taken at
# 0.08 s.  The history holds the marks of the earlier snapshots too; they
# were all labelled "snapshot", and the label of the page's own mark, at
# the right edge of the chart, was cut off by it, so the only one readable
# was an earlier snapshot's.  tests/programs/snapshot_at.c takes snapshot
# 0 50 ms after its first allocation and snapshot 1 30 ms later; the page
# of snapshot 1 must name each mark ("snapshot 0", "this snapshot (1)"),
# put it at that snapshot's own time (its mark event's, exactly), keep the
# labels inside the chart, and draw the line where the time axis has that
# time.
source "$ROOT/tests/lib.sh"
GPULEAK_OUTPUT=$PWD/exit.snap traced "$TPROG/snapshot_at" a.snap b.snap || fail "snapshot_at: status $?"
"$REPORT" --json a.snap >a.json && "$REPORT" --json b.snap >b.json || fail "--json"
"$REPORT" --html b.html b.snap || fail "--html: status $?"
# each snapshot's own mark: the last snapshot mark in its history
ta=$(jget a.json '[m["time_ns"] for m in d["timeline"]["marks"] if m["type"] == "snapshot"][-1]')
tb=$(jget b.json '[m["time_ns"] for m in d["timeline"]["marks"] if m["type"] == "snapshot"][-1]')
t0=$(jget b.json 'd["timeline"]["start_ns"]')
expect_eq "$(jget b.json '[m["time_ns"] for m in d["timeline"]["marks"]]')" "[$ta, $tb]" "b's history: both marks"
# lower bounds only (the sleeps are at least that long): 50 ms after the
# first allocation, then 30 ms more
[ $((ta - t0)) -ge 50000000 ] && [ $((tb - ta)) -ge 30000000 ] || fail "mark times: t0 $t0, a $ta, b $tb"
python3 - b.html "$t0" "$ta" "$tb" <<'PY' || fail "the page's marks"
import json, re, sys
s = open(sys.argv[1], encoding="utf-8").read()
p = json.loads(re.search(r'<script type="application/json" id="gl-data">(.*?)</script>', s, re.S).group(1))
t0, ta, tb = map(int, sys.argv[2:5])
got = [(m[0], m[1], m[5]) for m in p["timeline"]["marks"]]
if (p["snapshot"]["index"], p["timeline"]["t0"], got) != (1, t0, [(4, ta - t0, 0), (4, tb - t0, 1)]):
    sys.exit("FAIL: index %r, t0 %r, marks %r" % (p["snapshot"]["index"], p["timeline"]["t0"], got))
PY
if [ -n "$GL_SAN" ] || ! { command -v chromium >/dev/null || command -v chromium-browser >/dev/null || [ -n "${CHROMIUM:-}" ]; }; then
    echo "note: no Chromium here (or a sanitizer build): the marks were not drawn"
    echo ok
    exit 0
fi
python3 "$ROOT/tests/browser/eval_page.py" b.html drawn.json "(function () {
  var svg = document.querySelector('svg.timeline');
  return {width: svg.viewBox.baseVal.width,
    ticks: Array.from(svg.querySelectorAll('text.xtick')).map(function (t) { return [+t.getAttribute('data-v'), +t.getAttribute('x')]; }),
    marks: Array.from(svg.querySelectorAll('.mark')).map(function (g) {
      var t = g.querySelector('text'), b = t ? t.getBBox() : null;
      return [g.getAttribute('data-index'), +g.getAttribute('data-time-ns'), +g.querySelector('line').getAttribute('x1'),
              t ? t.textContent : null, b ? [b.x, b.x + b.width] : null]; })};
})()" || fail "the page in Chromium"
python3 - drawn.json "$ta" "$tb" <<'PY' || fail "the marks as drawn"
import json, sys
d = json.load(open(sys.argv[1]))
ta, tb = int(sys.argv[2]), int(sys.argv[3])
if d["errors"] or d["requests"]:
    sys.exit("FAIL: errors %r, requests %r" % (d["errors"], d["requests"]))
v = d["value"]
marks = v["marks"]
if [(m[0], m[1], m[3]) for m in marks] != [("0", ta, "snapshot 0"), ("1", tb, "this snapshot (1)")]:
    sys.exit("FAIL: marks %r" % marks)
(a, xa), (b, xb) = v["ticks"][0], v["ticks"][-1]  # the axis: x of a time
for m in marks:
    want = xa + (m[1] - a) * (xb - xa) / (b - a)
    if abs(m[2] - want) > 0.5:
        sys.exit("FAIL: mark %s at x %.1f, the axis puts %d ns at %.1f" % (m[0], m[2], m[1], want))
    if m[4][0] < 0 or m[4][1] > v["width"]:
        sys.exit("FAIL: mark %s's label %r outside the chart (0-%d)" % (m[0], m[4], v["width"]))
PY
echo ok
