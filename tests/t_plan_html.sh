# gpuleak plan --html FILE (issue 44, item 4): the --fit of t_plan_fit.sh
# (tests/programs/plan_linear.py on a 700 MiB L4: batch 34 fits, 35 is
# OOM) drawn as one self-contained page.  Its SVG has, per series (peak
# allocated, peak reserved, device used), one point per run whose bytes are
# the JSON's and whose height is those bytes on the chart's own y axis; the
# card's limit line at the height of its total, labelled with the card's
# name and size; one OOM cross (batch 35); the fit's line at batch 34; the
# table beneath, one row per run.  The command's text (an argument with
# markup in it) is escaped: no element comes of it.  The page replaces a
# planted symlink instead of writing through it, mode 0600.  In Chromium
# (when installed) it loads with no console error and no request, and the
# browser counts the same elements.  Before: "unknown option '--html'".
source "$ROOT/tests/lib.sh"
torch_real_setup
prog=$ROOT/tests/programs/plan_linear.py
MARKUP='<b>bold</b>&amp;"q"'

echo "victim" >victim
ln -s victim fit.html
"$LAUNCHER" plan --gpu l4 --gpu-memory 700MiB --steps 1 --json fit.json --html fit.html --fit batch=34..35 \
    -- "$PY" "$prog" '{batch}' 0 "$MARKUP" >table.txt 2>progress.txt || fail "plan exited $?: $(tail -3 progress.txt)"
expect_eq "$(cat victim)" victim "the symlink's target"
[ -f fit.html ] && [ ! -L fit.html ] || fail "fit.html is not a file of its own"
expect_eq "$(stat -c %a fit.html)" 600 "the page's mode"
expect_eq "$(ls | grep -c '\.tmp\.')" 0 "temporary files left"

python3 - fit.html fit.json "$PY $prog {batch} 0 $MARKUP" <<'PY' || fail "the page"
import json, sys
from html.parser import HTMLParser

page, plan, cmd = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3]


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.elems, self.stack, self.text = [], [], {}

    def handle_starttag(self, tag, attrs):
        self.elems.append((tag, dict(attrs), self.stack[-1] if self.stack else None))  # (tag, attrs, parent)
        if tag != "meta":  # the one void element here without a "/>"
            self.stack.append(len(self.elems) - 1)

    def handle_endtag(self, tag):
        if self.stack and self.elems[self.stack[-1]][0] == tag:
            self.stack.pop()

    def handle_data(self, data):
        for i in self.stack:
            self.text[i] = self.text.get(i, "") + data


p = Page()
p.feed(open(page).read())
E = p.elems


def find(tag, cls=None, **kw):
    return [(i, a) for i, (t, a, _) in enumerate(E) if t == tag and (cls is None or cls in a.get("class", "").split())
            and all(a.get(k.replace("_", "-")) == str(v) for k, v in kw.items())]


def text(i):
    return p.text.get(i, "")


def check(got, want, what):
    if got != want:
        sys.exit("%s: got %r, expected %r" % (what, got, want))


check([text(i) for i, _ in find("title") if E[E[i][2]][0] == "head"], ["gpuleak plan: batch on NVIDIA L4"], "title")
check([text(i) for i, _ in find("code", id="command")], [cmd], "the command, as text")
check(len(find("b")), 0, "<b> elements")
check(len(find("script")) + len(find("link")) + len(find("img")), 0, "scripts, links, images")
(_, svg), = find("svg", id="chart")
top, bottom, top_bytes = int(svg["data-plot-top"]), int(svg["data-plot-bottom"]), int(svg["data-top-bytes"])


def y(n):
    return round(bottom - n * (bottom - top) / top_bytes, 2)


total = plan["gpu"]["total_bytes"]
check(total, 700 << 20, "the card's total")
(_, limit), = find("line", "limit")
check((limit["data-bytes"], float(limit["y1"]), float(limit["y2"])), (str(total), y(total), y(total)), "the limit line")
check([text(i) for i, _ in find("text", "limit-label")], ["NVIDIA L4 (l4): 700.0 MiB"], "the limit's label")
runs = {r["values"]["batch"]: r for r in plan["runs"]}
check(sorted(runs), [34, 35], "the runs")
xs = {}
for key in ("peak_allocated", "peak_reserved", "device_used"):
    g = [i for i, a in find("g", "series") if a["data-series"] == key]
    check(len(g), 1, key + "'s group")
    pts = [a for i, a in find("circle", "point") if E[i][2] == g[0]]
    check(sorted((int(a["data-value"]), int(a["data-bytes"]), float(a["cy"])) for a in pts),
          sorted((b, r[key], y(r[key])) for b, r in runs.items()), key + "'s points")
    for a in pts:
        xs.setdefault(int(a["data-value"]), set()).add(a["cx"])
check(len(find("circle", "point")), 3 * len(runs), "points in all")
check({b: len(v) for b, v in xs.items()}, {34: 1, 35: 1}, "one x per value")
check(float(xs[35].pop()) > float(xs[34].copy().pop()), True, "35 right of 34")
check(y(total) <= y(runs[34]["device_used"]), True, "34's device use at most the limit line")
check([a["data-value"] for _, a in find("g", "oom")], ["35"], "OOM marks")
(_, fit), = find("line", "fit")
check((fit["data-value"], fit["x1"]), ("34", xs[34].pop()), "the fit's line")
rows = [i for i, a in find("tr")][1:]
check([" ".join(text(j) for j, (t, _, parent) in enumerate(E) if t == "td" and parent == i) for i in rows],
      ["34 %.1f MiB %.1f MiB %.1f MiB yes" % tuple(runs[34][k] / 1048576 for k in ("peak_allocated", "peak_reserved", "device_used")),
       "35 %.1f MiB %.1f MiB %.1f MiB OOM" % tuple(runs[35][k] / 1048576 for k in ("peak_allocated", "peak_reserved", "device_used"))],
      "the table")
check([" ".join(text(i).split()) for i, _ in find("p", "fit-result")], ["largest batch that fits in 34..35: 34"], "the fit's line of text")
PY

# In a browser: parses, no console error, nothing fetched, the same counts.
if command -v chromium >/dev/null || command -v chromium-browser >/dev/null || [ -n "${CHROMIUM:-}" ]; then
    python3 "$ROOT/tests/browser/eval_page.py" fit.html dom.json \
        '[document.title, document.querySelectorAll("svg circle.point").length, document.querySelectorAll("svg g.oom").length,
          document.querySelectorAll("svg line.limit").length, document.querySelectorAll("#runs tbody tr").length,
          document.querySelectorAll("b").length, document.getElementById("command").textContent.endsWith("<b>bold</b>&amp;\"q\"")]' ||
        fail "chromium: $(cat dom.json 2>/dev/null)"
    expect_eq "$(jget dom.json '[d["value"], d["errors"], d["requests"]]')" \
        '[["gpuleak plan: batch on NVIDIA L4", 6, 1, 1, 2, 0, true], [], []]' "the page in chromium"
else
    echo "chromium is not installed: the browser part is skipped"
fi
