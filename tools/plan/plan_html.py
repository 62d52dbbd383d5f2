"""gpuleak plan --html FILE: the plan as one self-contained HTML page.

An inline SVG chart -- x: the swept values, y: bytes -- with a line and
points for PyTorch's peak allocated, peak reserved and the predicted device
memory used, a horizontal line at the card's total (labelled with its name
and size), each OOM run marked with a cross, and with --fit the largest
value that fits marked by a vertical line; the table beneath.  No script,
no style sheet or font from elsewhere, nothing fetched (the page's
Content-Security-Policy forbids it).  Every string that comes from the
command line (the command, the values, the names) is escaped.  docs/plan.md.
"""

import html
import math
import os

# Plot area inside the SVG's viewBox: the axes' labels live in the margins.
WIDTH, HEIGHT = 760, 420
LEFT, RIGHT, TOP, BOTTOM = 90, 30, 40, 360
SERIES = (("peak_allocated", "peak allocated", "#1f77b4"),
          ("peak_reserved", "peak reserved", "#ff7f0e"),
          ("device_used", "device used (predicted)", "#2ca02c"))
GiB, MiB = 1 << 30, 1 << 20

STYLE = """
body { font: 14px system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.3em; }
code { background: #f3f3f3; padding: 0.1em 0.3em; word-break: break-all; }
svg text { font: 12px system-ui, sans-serif; fill: #333; }
svg .axis { stroke: #444; }
svg .grid { stroke: #e4e4e4; }
svg .limit { stroke: #d62728; stroke-width: 2; stroke-dasharray: 8 4; }
svg text.limit-label { fill: #d62728; }
svg .fit { stroke: #9467bd; stroke-width: 2; stroke-dasharray: 4 3; }
svg text.fit-label { fill: #9467bd; }
svg .oom path { stroke: #d62728; stroke-width: 3; }
svg text.oom-label { fill: #d62728; font-weight: bold; }
svg polyline { fill: none; stroke-width: 2; }
table { border-collapse: collapse; margin-top: 1em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.7em; text-align: right; }
th { background: #f3f3f3; }
td.fits-OOM, td.fits-no, td.fits-failed { color: #d62728; font-weight: bold; }
"""


def esc(value):
    return html.escape(str(value), quote=True)


def mib(n):
    return "-" if n is None else "%.1f MiB" % (n / MiB)


def nice_step(span, ticks=5):
    """A tick step of 1, 2 or 5 x 10^k that cuts span into about `ticks`."""
    raw = span / ticks
    power = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if m * power >= raw:
            return m * power
    return 10 * power


def y_axis(doc):
    """(top of the axis in bytes, unit, unit's size, tick step in units):
    the axis reaches above the card's total and every value drawn."""
    values = [doc["gpu"]["total_bytes"]]
    values += [r[key] for r in doc["runs"] for key, _, _ in SERIES if r.get(key) is not None]
    high = max(values) or 1
    unit, size = ("GiB", GiB) if high >= 2 * GiB else ("MiB", MiB)
    step = nice_step(high / size * 1.05)
    top = math.ceil(high * 1.05 / size / step) * step
    return top * size, unit, size, step


def numeric(values):
    return all(isinstance(v, int) and not isinstance(v, bool) for v in values)


def x_positions(values):
    """Where each distinct swept value sits on the x axis: by its number
    when every value is an integer, else in the order the runs came."""
    span = WIDTH - RIGHT - LEFT
    pad = 30
    if numeric(values) and len(set(values)) > 1:
        lo, hi = min(values), max(values)
        return {v: LEFT + pad + (v - lo) * (span - 2 * pad) / (hi - lo) for v in values}
    distinct = list(dict.fromkeys(values))
    if len(distinct) == 1:
        return {distinct[0]: LEFT + span / 2}
    return {v: LEFT + pad + i * (span - 2 * pad) / (len(distinct) - 1) for i, v in enumerate(distinct)}


def y_of(nbytes, top_bytes):
    return BOTTOM - nbytes * (BOTTOM - TOP) / top_bytes


def fmt(x):
    return "%.2f" % x


def axes(name, xs, top_bytes, unit, size, step):
    out = ['<g class="axes">']
    k = 0
    while k * step <= top_bytes / size + 1e-9:
        y = y_of(k * step * size, top_bytes)
        label = ("%g" % (k * step))
        out.append('<line class="grid" x1="%d" x2="%d" y1="%s" y2="%s"/>' % (LEFT, WIDTH - RIGHT, fmt(y), fmt(y)))
        out.append('<text class="ytick" x="%d" y="%s" text-anchor="end">%s %s</text>' % (LEFT - 6, fmt(y + 4), label, unit))
        k += 1
    out.append('<line class="axis" x1="%d" x2="%d" y1="%d" y2="%d"/>' % (LEFT, WIDTH - RIGHT, BOTTOM, BOTTOM))
    out.append('<line class="axis" x1="%d" x2="%d" y1="%d" y2="%d"/>' % (LEFT, LEFT, TOP, BOTTOM))
    for v, x in xs.items():
        out.append('<text class="xtick" x="%s" y="%d" text-anchor="middle">%s</text>' % (fmt(x), BOTTOM + 18, esc(v)))
    out.append('<text class="xlabel" x="%d" y="%d" text-anchor="middle">%s</text>'
               % ((LEFT + WIDTH - RIGHT) // 2, BOTTOM + 40, esc(name)))
    out.append("</g>")
    return out


def limit_line(gpu, top_bytes):
    y = y_of(gpu["total_bytes"], top_bytes)
    label = "%s (%s): %s" % (gpu["name"], gpu["profile"], mib(gpu["total_bytes"]))
    return ['<line class="limit" x1="%d" x2="%d" y1="%s" y2="%s" data-bytes="%d"/>'
            % (LEFT, WIDTH - RIGHT, fmt(y), fmt(y), gpu["total_bytes"]),
            '<text class="limit-label" x="%d" y="%s">%s</text>' % (LEFT + 6, fmt(y - 6), esc(label))]


def series(runs, name, xs, top_bytes):
    out = []
    for key, label, colour in SERIES:
        pts = sorted(((xs[r["values"][name]], r) for r in runs if r.get(key) is not None), key=lambda p: p[0])
        out.append('<g class="series" data-series="%s">' % key)
        if len(pts) > 1:
            out.append('<polyline stroke="%s" points="%s"/>'
                       % (colour, " ".join("%s,%s" % (fmt(x), fmt(y_of(r[key], top_bytes))) for x, r in pts)))
        for x, r in pts:
            v = r["values"][name]
            out.append('<circle class="point" cx="%s" cy="%s" r="4" fill="%s" data-value="%s" data-bytes="%d">'
                       '<title>%s=%s: %s %s</title></circle>'
                       % (fmt(x), fmt(y_of(r[key], top_bytes)), colour, esc(v), r[key], esc(name), esc(v),
                          esc(label), mib(r[key])))
        out.append("</g>")
    return out


def oom_marks(runs, name, xs, gpu, top_bytes):
    """A cross where each OOM run ended: at its predicted use, else at the
    card's total (the run ran out of memory there)."""
    out = []
    for r in runs:
        if not r.get("oom"):
            continue
        v = r["values"][name]
        x = xs[v]
        y = y_of(r["device_used"] if r.get("device_used") is not None else gpu["total_bytes"], top_bytes)
        out.append('<g class="oom" data-value="%s"><path d="M%s %sL%s %sM%s %sL%s %s"/>'
                   '<text class="oom-label" x="%s" y="%s" text-anchor="middle">OOM</text></g>'
                   % (esc(v), fmt(x - 7), fmt(y - 7), fmt(x + 7), fmt(y + 7), fmt(x - 7), fmt(y + 7), fmt(x + 7),
                      fmt(y - 7), fmt(x), fmt(y - 12)))
    return out


def fit_mark(fit, xs):
    if not fit or fit.get("largest") is None or fit["largest"] not in xs:
        return []
    x = xs[fit["largest"]]
    return ['<line class="fit" x1="%s" x2="%s" y1="%d" y2="%d" data-value="%s"/>'
            % (fmt(x), fmt(x), TOP, BOTTOM, esc(fit["largest"])),
            '<text class="fit-label" x="%s" y="%d">largest %s that fits: %s</text>'
            % (fmt(x + 5), BOTTOM - 8, esc(fit["name"]), esc(fit["largest"]))]


def legend():
    out = ['<g class="legend">']
    for i, (key, label, colour) in enumerate(SERIES):
        x = LEFT + 10 + i * 190
        out.append('<circle cx="%d" cy="%d" r="4" fill="%s"/><text x="%d" y="%d">%s</text>'
                   % (x, TOP - 24, colour, x + 8, TOP - 20, esc(label)))
    out.append("</g>")
    return out


def chart(doc, name):
    runs = doc["runs"]
    top_bytes, unit, size, step = y_axis(doc)
    xs = x_positions([r["values"][name] for r in runs])
    body = (axes(name, xs, top_bytes, unit, size, step) + limit_line(doc["gpu"], top_bytes)
            + series(runs, name, xs, top_bytes) + oom_marks(runs, name, xs, doc["gpu"], top_bytes)
            + fit_mark(doc.get("fit"), xs) + legend())
    return (['<svg id="chart" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d"'
             ' role="img" data-top-bytes="%d" data-plot-top="%d" data-plot-bottom="%d">'
             % (WIDTH, HEIGHT, WIDTH, HEIGHT, top_bytes, TOP, BOTTOM)] + body + ["</svg>"])


def fits_word(r):
    if r.get("oom"):
        return "OOM"
    if r.get("fits"):
        return "yes"
    return "no" if r.get("exit_status") == 0 else "failed (exit %d)" % r.get("exit_status")


def table(doc, name):
    out = ['<table id="runs"><thead><tr><th>%s</th><th>peak allocated</th><th>peak reserved</th>'
           '<th>device used</th><th>fits</th></tr></thead><tbody>' % esc(name)]
    for r in doc["runs"]:
        word = fits_word(r)
        cells = "".join('<td title="%s">%s</td>' % ("-" if r.get(k) is None else "%d bytes" % r[k], mib(r.get(k)))
                        for k in ("peak_allocated", "peak_reserved", "device_used"))
        out.append('<tr><td>%s</td>%s<td class="fits-%s">%s</td></tr>'
                   % (esc(r["values"][name]), cells, esc(word.split()[0]), esc(word)))
    out.append("</tbody></table>")
    fit = doc.get("fit")
    if fit:
        out.append('<p class="fit-result">largest %s that fits in %d..%d: %s</p>'
                   % (esc(fit["name"]), fit["low"], fit["high"],
                      "none" if fit["largest"] is None else esc(fit["largest"])))
    return out


def page(doc, name, cmd):
    """The whole page, as text."""
    gpu = doc["gpu"]
    title = "gpuleak plan: %s on %s" % (name, gpu["name"])
    head = ['<!DOCTYPE html>', '<html lang="en"><head><meta charset="utf-8">',
            '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'">',
            "<title>%s</title>" % esc(title), "<style>%s</style></head>" % STYLE,
            '<body data-ready="1">', "<h1>%s</h1>" % esc(title),
            '<p>Card: %s (%s), %d bytes (%s), context %s; optimizer steps per run: %s.  Predicted on fakecuda, '
            'not measured on the card (docs/plan.md).</p>'
            % (esc(gpu["name"]), esc(gpu["profile"]), gpu["total_bytes"], mib(gpu["total_bytes"]),
               mib(gpu["context_bytes"]), esc(doc["steps"] or "all")),
            '<p>Command: <code id="command">%s</code></p>' % esc(" ".join(cmd))]
    return "\n".join(head + chart(doc, name) + table(doc, name) + ["</body></html>", ""])


def write_atomic(path, text):
    """Writes text to path: through a new temporary file beside it (never
    through a planted symlink), mode 0600, renamed over path.  OSError when
    it cannot; nothing is left behind then."""
    tmp = "%s.tmp.%d" % (path, os.getpid())
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
