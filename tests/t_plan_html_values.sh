# gpuleak plan --html's page for sweeps t_plan_html.sh does not run (the
# renderer, tools/plan/plan_html.py as installed, on plans made here):
# values that are not all integers sit evenly in the order given and are
# escaped wherever they appear (axis, points, table); integer values sit by
# their number; a run without PyTorch's figures has no point (but its row);
# a run whose use exceeds the card is drawn above the limit line, which
# then is under the axis's top; a fit with no value that fits draws no fit
# line and says "none"; a page that cannot be written is one line, exit 1.
# Before: plan_html.py did not exist.
source "$ROOT/tests/lib.sh"
PLANDIR=$BUILD/libexec/gpuleak/plan
[ -f "$PLANDIR/plan_html.py" ] || fail "no $PLANDIR/plan_html.py"

python3 - "$PLANDIR" <<'PY' || fail "the pages"
import os, re, sys
sys.path.insert(0, sys.argv[1])
import plan_html

GPU = {"profile": "l4", "name": "NVIDIA L4", "total_bytes": 1000 << 20, "context_bytes": 384 << 20}


def run(v, alloc, reserved, used, oom=False, rc=0):
    return {"values": {"tag": v}, "peak_allocated": alloc, "peak_reserved": reserved, "device_peak": None,
            "device_used": used, "fits": not oom and rc == 0 and used is not None and used <= GPU["total_bytes"],
            "oom": oom, "exit_status": rc}


def check(got, want, what):
    if got != want:
        sys.exit("%s: got %r, expected %r" % (what, got, want))


def attrs(page, tag, cls):
    return [dict(re.findall(r'([a-z0-9-]+)="([^"]*)"', m)) for m in
            re.findall(r"<%s ([^>]*class=\"%s\"[^>]*)>" % (tag, cls), page)]


# Not all integers: in the order given, evenly; every value escaped.
doc = {"gpu": GPU, "steps": 3, "runs": [run("<i>x</i>", 100 << 20, 200 << 20, 600 << 20),
                                        run("a&b", None, None, None, rc=1),
                                        run("3", 300 << 20, 400 << 20, 1200 << 20)]}
page = plan_html.page(doc, "tag", ["python", "t.py", "{tag}"])
check("<i>" in page, False, "an unescaped value")
check(page.count("&lt;i&gt;x&lt;/i&gt;"), 8, "the escaped value (tick, 3 points and their tooltips, row)")
check(page.count("a&amp;b"), 2, "the failed run's value (tick, row)")
ticks = re.findall(r'<text class="xtick" x="([0-9.]+)"[^>]*>([^<]*)</text>', page)
check([t for _, t in ticks], ["&lt;i&gt;x&lt;/i&gt;", "a&amp;b", "3"], "ticks in the order given")
x = [float(p) for p, _ in ticks]
check(abs((x[1] - x[0]) - (x[2] - x[1])) < 0.02 and x[1] > x[0], True, "evenly spaced: %r" % x)
pts = attrs(page, "circle", "point")
check(sorted(p["data-value"] for p in pts), sorted(["&lt;i&gt;x&lt;/i&gt;", "3"] * 3), "points: none for the failed run")
check(len(re.findall(r"<tr><td>", page)), 3, "table rows")
check("failed (exit 1)</td>" in page, True, "the failed run's row")
# The run over the card: above the limit line; the axis reaches above it.
limit, = attrs(page, "line", "limit")
over = [p for p in pts if p["data-bytes"] == str(1200 << 20)]
check(float(over[0]["cy"]) < float(limit["y1"]), True, "1200 MiB drawn above the 1000 MiB line")
svg = dict(re.findall(r'([a-z0-9-]+)="([^"]*)"', re.search(r"<svg ([^>]*)>", page).group(1)))
check(int(svg["data-top-bytes"]) >= 1200 << 20, True, "the axis reaches the highest point")
check(float(limit["y1"]) > int(svg["data-plot-top"]), True, "the limit line under the axis's top")

# Integers: by their number.
doc = {"gpu": GPU, "steps": 3, "runs": [run(v, v << 20, v << 21, v << 22) for v in (1, 2, 10)],
       "fit": {"name": "tag", "low": 1, "high": 10, "largest": None}}
page = plan_html.page(doc, "tag", ["python", "t.py", "{tag}"])
x = {t: float(p) for p, t in re.findall(r'<text class="xtick" x="([0-9.]+)"[^>]*>([^<]*)</text>', page)}
check(abs((x["2"] - x["1"]) * 8 - (x["10"] - x["2"])) < 0.1, True, "x by number (to the coordinates' 0.01): %r" % x)
check(attrs(page, "line", "fit"), [], "a fit line when none fits")
check('<p class="fit-result">largest tag that fits in 1..10: none</p>' in page, True, "the fit's result")
PY

# A page that cannot be written: one line, exit 1, after the table (a
# program that is not Python: one quick run, no figures).
if [ -z "$GL_SAN" ]; then  # the launcher preloads libgpuleak.so alone (torch_real_setup)
    rc=0; "$LAUNCHER" plan --gpu l4 --html missing/x.html --sweep b=1 -- true '{b}' >table.txt 2>err.txt || rc=$?
    expect_eq "$rc:$(tail -1 err.txt)" "1:gpuleak plan: cannot write missing/x.html: No such file or directory" "an unwritable page"
    expect_eq "$(grep '^1 ' table.txt)" "1                         -                -                -  no" "the table before it"
    expect_eq "$(ls)" "err.txt
table.txt" "files left"
    # The same for --json (before: a Python traceback), and both at once:
    # each named in its line, the page still written when the JSON is not.
    rc=0; "$LAUNCHER" plan --gpu l4 --json missing/x.json --html ok.html --sweep b=1 -- true '{b}' >table.txt 2>err.txt || rc=$?
    expect_eq "$rc:$(tail -1 err.txt)" "1:gpuleak plan: cannot write missing/x.json: No such file or directory" "an unwritable JSON file"
    expect_eq "$(grep -c "cannot write" err.txt)" 1 "one line for it"
    grep -q '<svg' ok.html || fail "the page beside the unwritable JSON file"
    rm -f ok.html err.txt table.txt
fi
