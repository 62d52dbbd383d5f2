#!/usr/bin/env python3
"""Opens a gpuleak HTML report in headless Chromium and checks it.

  check_html.py PAGE.html REPORT.json [--growth DIFF.json] [--text REPORT.txt]
                [--max-load-s N] [--screenshot OUT.png [--full]] [--quiet]
  check_html.py --screenshot-only PAGE.html OUT.png [--full]

REPORT.json is `gpuleak-report --json` of the same snapshot (the last one
for a page of several): the numbers the page shows must be its numbers.
Checks: the page loads with no console error and no request but its own
file; the timeline, flame graphs and address map exist and carry the
snapshot's numbers (with --text, the lifetimes table is the text
report's, line for line); hovering shows the event under the cursor;
dragging zooms the timeline; clicking a flame-graph frame zooms into it and clicking
the root zooms back out; clicking a column sorts a table.  Prints one line of
timings (load, render) on success; exits 1 with the reasons otherwise.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser  # noqa: E402

fails = []


def check(cond, what):
    if not cond:
        fails.append(what)
    return cond


def eq(got, want, what):
    check(got == want, "%s: got %r, expected %r" % (what, got, want))


def attrs(page, selector, names):
    return page.eval("Array.from(document.querySelectorAll(%s)).map(function(e){return %s.map("
                     "function(n){return e.getAttribute(n);});})" % (json.dumps(selector), json.dumps(names)))


AXES_JS = """(function(){return Array.from(document.querySelectorAll(%s)).map(function(svg){
  var vb = svg.viewBox.baseVal;
  function ticks(cls) { return Array.from(svg.querySelectorAll('text.' + cls)).map(function(t){
    var b = t.getBBox(); return [t.textContent, +t.getAttribute('data-v'), b.x, b.x + b.width]; }); }
  return {w: vb.width, x: ticks('xtick'), y: ticks('ytick')};});})()"""

BYTE_UNITS = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]


def byte_label(v, top):
    """What a byte tick must read: the largest binary unit not above the top tick."""
    if v == 0:
        return "0"
    u = 0
    while u < len(BYTE_UNITS) - 1 and 1024 ** (u + 1) <= top:
        u += 1
    x = v / 1024 ** u
    return ("%d" % x if x == int(x) else ("%g" % x)) + " " + BYTE_UNITS[u]


def check_axes(page, selector, what):
    """Every chart's axes: time labels distinct, at evenly spaced rising
    values, each inside the chart (not clipped at an edge); byte ticks at a
    power-of-two step in one binary unit ("256 KiB", never "1000.0 KiB")."""
    charts = page.eval(AXES_JS % json.dumps(selector))
    check(len(charts) > 0, "%s: no chart" % what)
    for i, c in enumerate(charts):
        xs, ys = c["x"], c["y"]
        labels = [x[0] for x in xs]
        if labels and labels[0].startswith("#"):
            pass  # snapshots of different processes: numbered, not timed
        else:
            check(len(xs) >= 2, "%s %d: time ticks %r" % (what, i, labels))
            eq(len(set(labels)), len(labels), "%s %d: distinct time labels" % (what, i))
            vs = [x[1] for x in xs]
            check(all(b > a for a, b in zip(vs, vs[1:])), "%s %d: rising time ticks %r" % (what, i, vs))
            steps = [b - a for a, b in zip(vs, vs[1:])]
            check(all(abs(d - steps[0]) <= 1e-6 * steps[0] for d in steps), "%s %d: even time steps %r" % (what, i, vs))
            check(all(v % steps[0] < 1e-3 or steps[0] - v % steps[0] < 1e-3 for v in vs) if steps else True,
                  "%s %d: time ticks at multiples of their step %r" % (what, i, vs))
        for x in xs:
            check(x[2] >= -0.5 and x[3] <= c["w"] + 0.5, "%s %d: label %r clipped (%.1f..%.1f of %s)" %
                  (what, i, x[0], x[2], x[3], c["w"]))
        yv = [int(y[1]) for y in ys]
        check(len(yv) >= 1 and yv[0] == 0, "%s %d: byte ticks %r" % (what, i, ys))  # only "0": no memory in view
        if len(yv) >= 2:
            step = yv[1]
            check(step & (step - 1) == 0, "%s %d: byte step %d is a power of two" % (what, i, step))
            eq(yv, [k * step for k in range(len(yv))], "%s %d: byte ticks evenly spaced" % (what, i))
            eq([y[0] for y in ys], [byte_label(v, yv[-1]) for v in yv], "%s %d: byte labels" % (what, i))

def exact(n):
    return "{:,}".format(n)


def cells_by_head(page, table):
    """Each row of the table, {column title: cell text}, in page order;
    None without the table."""
    return page.eval("(function(){var t=document.getElementById(%s); if(!t) return null;"
                     "var h=Array.from(t.querySelectorAll('th')).map(function(e){return e.textContent;});"
                     "return Array.from(t.querySelectorAll('tbody tr.row')).map(function(r){var o={};"
                     "Array.from(r.cells).forEach(function(c,i){o[h[i]]=c.textContent;}); return o;});})()"
                     % json.dumps(table))


def head(page, sel, names):
    got = attrs(page, sel, names)
    return [int(v) for v in got[0]] if got else None


# ALLOCATION LIFETIMES' class names by their lower bound (lifetimes.c)
LIFE_CLASS = {0: "under 10 us", 10**4: "10 us - 100 us", 10**5: "100 us - 1 ms", 10**6: "1 ms - 10 ms",
              10**7: "10 ms - 100 ms", 10**8: "100 ms - 1 s", 10**9: "1 s - 10 s", 10**10: "10 s - 100 s",
              10**11: "100 s - 1000 s", 10**12: "1000 s - 10000 s", 10**13: "10000 s - 100000 s",
              10**14: "100000 s or more"}


def check_sections(page, rep, text_path):
    """The tables of ALLOCATION CALLS, TEMPORARY ALLOCATIONS and ALLOCATION
    LIFETIMES: their headings and rows are the JSON report's figures, in its
    order, and none where the text report writes no section; with the text
    report (--text), the lifetimes table is its table, line for line."""
    calls = rep.get("allocation_calls", {"sites": []})
    rows = cells_by_head(page, "calls-table")
    if not calls["sites"]:
        eq(rows, None, "no allocation calls table")
    elif check(rows is not None, "allocation calls: no table#calls-table"):
        eq(head(page, "#calls-head", ["data-calls", "data-frees", "data-bytes", "data-stacks"]),
           [calls["calls"], calls["frees"], calls["bytes"], len(calls["sites"])], "allocation calls heading")
        sampled = calls.get("sampled", False)
        got = [[r["calls"], r["freed"], r["bytes"], r["API"], r["kind"]] +
               ([r["est. calls"], r["est. freed"], r["est. bytes"]] if sampled else []) for r in rows]
        want = [[exact(x["calls"]), exact(x["frees"]), exact(x["bytes"]), x["api"], x["kind"]] +
                (([exact(x["estimated_calls"]), exact(x["estimated_frees"]), exact(x["estimated_bytes"])]
                  if x["frames"] else ["not sampled"] * 3) if sampled else []) for x in calls["sites"]]
        eq(got, want[:200], "allocation calls table rows")
        eq(page.eval("!!document.getElementById('calls-sampled')"), sampled, "allocation calls: the sampled note")
    temp = rep.get("temporary_allocations", {"temporary": 0, "sites": []})
    rows = cells_by_head(page, "temporary-table")
    if not temp["temporary"]:
        eq(rows, None, "no temporary allocations table")
    elif check(rows is not None, "temporary allocations: no table#temporary-table"):
        eq(head(page, "#temporary-head", ["data-temporary", "data-allocations", "data-bytes", "data-stacks"]),
           [temp["temporary"], temp["allocations"], temp["bytes"], len(temp["sites"])], "temporary heading")
        eq([[r["temporary"], r["made there"], r["bytes"], r["API"], r["kind"], r["allocated at"].split(" ")[0]]
            for r in rows],
           [[exact(x["temporary"]), exact(x["allocations"]), exact(x["bytes"]), x["api"], x["kind"],
             x["frames"][0]["function"] if x["frames"] else "(no"] for x in temp["sites"]][:200],
           "temporary allocations table rows")
    life = rep.get("allocation_lifetimes")
    rows = cells_by_head(page, "lifetimes-table")
    note = page.eval("(function(){var e=document.getElementById('lifetimes-note'); return e && e.textContent;})()")
    if not life or not (life["freed"]["count"] or life["live"]["count"]):
        eq((rows, note), (None, None), "no allocation lifetimes table")
        return
    if not check(rows is not None, "allocation lifetimes: no table#lifetimes-table"):
        return
    by = {}
    for side in "freed", "live":
        for x in life[side]["classes"]:
            by.setdefault(x["min_ns"], {"freed": (0, 0), "live": (0, 0)})[side] = (x["count"], x["bytes"])
    want = [[LIFE_CLASS[k], exact(v["freed"][0]), exact(v["freed"][1]), exact(v["live"][0]), exact(v["live"][1])]
            for k, v in sorted(by.items())]
    got = [[r["lifetime, or age"], r["freed"], r["freed bytes"], r["live"], r["live bytes"]] for r in rows]
    eq(got, want, "allocation lifetimes table rows")
    totals = head(page, "#lifetimes-head", ["data-freed", "data-freed-bytes", "data-live", "data-live-bytes"])
    eq(totals, [life["freed"]["count"], life["freed"]["bytes"], life["live"]["count"], life["live"]["bytes"]],
       "allocation lifetimes heading")
    n = life["frees_before_history"]
    eq(note, "No history in this snapshot: no lives of freed allocations." if not life["history"] else
       "%s free%s of allocations made before the history began: lives unknown." % (exact(n), "" if n == 1 else "s")
       if n else None, "allocation lifetimes note")
    if text_path:  # the text's table, line for line, its line "all" the heading's
        lines = open(text_path).read().split("\n")
        sec = lines[lines.index("ALLOCATION LIFETIMES"):]
        table = [x for x in sec[:sec.index("")] if x.startswith("  ")][1:]
        line = lambda r: "  %-20s %10s %16s %10s %16s" % tuple(r)
        eq([line(r) for r in got] + [line(["all"] + [exact(v) for v in totals])], table,
           "allocation lifetimes: the text's table")
    # a click on the first column sorts by the classes' time, not their names
    cx, cy, _, _ = page.center("#lifetimes-table th:nth-child(1)")
    page.click(cx, cy)
    page.click(cx, cy)
    names = [r["lifetime, or age"] for r in cells_by_head(page, "lifetimes-table")]
    eq(names, [x[0] for x in reversed(want)], "allocation lifetimes sorted by time, longest first")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("report", nargs="?")
    ap.add_argument("--growth")
    ap.add_argument("--text")
    ap.add_argument("--max-load-s", type=float, default=10.0)
    ap.add_argument("--screenshot")
    ap.add_argument("--screenshot-only", action="store_true")
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=900)
    a = ap.parse_args()

    b = Browser()
    try:
        page = b.new_page(a.width, a.height)
        load_s = page.open_ready(a.page, a.max_load_s)
        render_ms = float(page.eval("document.body.getAttribute('data-render-ms')"))
        if a.screenshot_only:
            page.screenshot(a.screenshot or a.report, full=a.full)
            print("screenshot: %s (load %.2f s, render %.0f ms)" % (a.screenshot or a.report, load_s, render_ms))
            return 0
        check(load_s <= a.max_load_s, "page took %.2f s to load and draw (limit %.1f s)" % (load_s, a.max_load_s))
        eq(page.errors, [], "console errors")
        eq(page.other_requests(), [], "network requests besides the page itself")

        rep = json.load(open(a.report))
        devices = {d["device"]: d for d in rep["devices"]}

        # timeline: one chart per device with history; the peak is the snapshot's
        tl = rep.get("timeline", {})
        charts = attrs(page, "svg.timeline", ["data-device", "data-peak-bytes", "data-max-bytes", "data-points"])
        if tl.get("present"):
            eq(sorted(int(c[0]) for c in charts), sorted(x["device"] for x in tl["devices"]), "timeline charts")
            for c in charts:
                dev = int(c[0])
                tdev = [x for x in tl["devices"] if x["device"] == dev][0]
                eq(int(c[1]), devices[dev]["peak_bytes"], "device %d: data-peak-bytes" % dev)
                eq(int(c[2]), tdev["max_bytes"], "device %d: data-max-bytes" % dev)
                eq(int(c[3]), len(tdev["bytes"]), "device %d: points" % dev)
            cards = attrs(page, ".card.peak", ["data-device", "data-peak-bytes"])
            eq(sorted((int(x), int(y)) for x, y in cards),
               sorted((d["device"], d["peak_bytes"]) for d in rep["devices"]), "peak cards")
            # the peak marker, where the history covers the peak
            for d in rep["devices"]:
                ph = d.get("peak_history")
                if ph and ph["covered"]:
                    m = attrs(page, "svg.timeline[data-device='%d'] .peak-marker" % d["device"],
                              ["data-bytes", "data-seq"])
                    eq([(int(x), int(y)) for x, y in m], [(d["peak_bytes"], d["peak_seq"])],
                       "device %d: peak marker" % d["device"])
                    text = page.eval("document.querySelector(\"svg.timeline[data-device='%d'] .peak-marker text\")"
                                     ".textContent" % d["device"])
                    check(text.startswith("peak "), "peak label: %r" % text)
            # an annotation without a label is drawn as "annotation"
            labels = [m["label"] if m["label"] is not None else "annotation" for m in tl["marks"] if m["type"] == "annotation"]
            shown = page.eval("Array.from(document.querySelectorAll('svg.timeline .mark[data-type=\"5\"]'))"
                              ".map(function(e){return e.getAttribute('data-label');})")
            check(set(shown) <= set(labels) and (not labels or shown), "annotation marks %r of %r" % (shown, labels))
            # hover: the event under the cursor
            sel = "svg.timeline"
            x, y, w, h = page.center(sel)
            left = x - w / 2
            ml = w * 64 / 1000.0  # the plot's left margin in pixels
            target = None
            dev0 = int(charts[0][0])
            tdev = [x2 for x2 in tl["devices"] if x2["device"] == dev0][0]
            if tdev["time_ns"]:
                # the moment of the highest point
                span = max(1, tl["end_ns"] - tl["start_ns"])
                t = tdev["max_time_ns"] - tl["start_ns"]
                target = left + ml + (w - ml - w * 12 / 1000.0) * (t + 0.5 * span / 1000) / span
                page.mouse("mouseMoved", target, y)
                tip = page.eval("document.getElementById('tip').textContent")
                check("live" in tip and ("alloc " in tip or "free " in tip), "hover text: %r" % tip)
            check_axes(page, "svg.timeline", "timeline")
            # drag to zoom: the view narrows
            vs = page.eval("document.querySelector('svg.timeline').getAttribute('data-view-end')")
            page.drag(left + ml + (w - ml) * 0.3, y, left + ml + (w - ml) * 0.6, y)
            v0 = int(page.eval("document.querySelector('svg.timeline').getAttribute('data-view-start')"))
            v1 = int(page.eval("document.querySelector('svg.timeline').getAttribute('data-view-end')"))
            check(v0 > 0 and v1 < int(vs) and v1 > v0, "drag zoom: view %d..%d of %s" % (v0, v1, vs))
            check_axes(page, "svg.timeline", "zoomed timeline")
            page.eval("document.querySelector('svg.timeline').dispatchEvent(new MouseEvent('dblclick'))")
            eq(page.eval("document.querySelector('svg.timeline').getAttribute('data-view-start')"), "0",
               "double-click zooms out")
        else:
            eq(charts, [], "no timeline without history")

        # flame graphs: totals are the JSON's
        leaked = rep["leak_summary"]["leaked_bytes"]
        fl = attrs(page, "svg.flame", ["data-kind", "data-total-bytes"])
        peak_total = sum(p["bytes"] for d in rep["devices"] for p in d["peak_composition"])
        if rep["leak_summary"].get("sampled"):  # GPULEAK_MODE=light: the estimates of the sampled stacks
            leaked = sum(g["estimated_bytes"] for g in rep["leaks"] if g["stack_id"])
            peak_total = sum(p["estimated_bytes"] for d in rep["devices"] for p in d["peak_composition"] if p["stack_id"])
        want = []
        if leaked:
            want.append(("leaks", leaked))
        torch = rep.get("torch") or {}
        if torch.get("status") == "answered" and torch["tensor_count"]:  # PyTorch's live tensors
            want.append(("tensors", sum(x["allocated_bytes"] for x in torch["segments"])))
        if peak_total:
            want.append(("peak", peak_total))
        eq([(k, int(v)) for k, v in fl], want, "flame graph totals")
        if leaked:
            sel = "svg.flame[data-kind='leaks']"
            nodes = attrs(page, sel + " g.fnode", ["data-name", "data-bytes"])
            check(len(nodes) >= 2, "flame nodes: %d" % len(nodes))
            # click the largest frame below the roots: zoom into it
            cand = page.eval("(function(){var g=Array.from(document.querySelectorAll(%s));"
                             "g=g.filter(function(e){return e.querySelector('rect').getAttribute('y')>=36;});"
                             "g.sort(function(a,b){return b.getAttribute('data-bytes')-a.getAttribute('data-bytes');});"
                             "var e=g[0]; e.setAttribute('id','clickme'); return [e.getAttribute('data-name'),"
                             "+e.getAttribute('data-bytes')];})()" % json.dumps(sel + " g.fnode"))
            cx, cy, cw, ch = page.center("#clickme rect")
            page.click(cx, cy)
            z = attrs(page, sel, ["data-zoom-name", "data-zoom-bytes", "data-zoom-depth"])[0]
            eq((z[0], int(z[1])), (cand[0], cand[1]), "click zooms into the frame")
            check(int(z[2]) >= 2, "zoom depth %s" % z[2])
            # the zoomed frame now spans the whole width
            width = page.eval("(function(){var r=Array.from(document.querySelectorAll(%s)).filter(function(e){"
                              "return !e.classList.contains('anc');})[0].querySelector('rect');"
                              "return +r.getAttribute('width');})()" % json.dumps(sel + " g.fnode"))
            check(width > 990, "zoomed frame width %r" % width)
            cx, cy, cw, ch = page.center(sel + " g.fnode.anc rect")
            page.click(cx, cy)
            eq(attrs(page, sel, ["data-zoom-depth"])[0][0], "0", "click on the root zooms out")

        # address map: the fragmentation section's numbers
        for f in rep.get("fragmentation", {}).get("devices", []):
            m = attrs(page, "svg.addrmap[data-device='%d']" % f["device"],
                      ["data-pages", "data-holes", "data-hole-bytes", "data-largest-hole", "data-address-bytes",
                       "data-touched-cells", "data-unit"])
            if not f["address_count"]:
                continue
            if not check(len(m) == 1, "device %d: address map" % f["device"]):
                continue
            m = [int(v) for v in m[0]]
            eq(m[:5], [f["pages"], f["holes"], f["hole_bytes"], f["largest_hole"], f["address_bytes"]],
               "device %d: address map numbers" % f["device"])
            if m[6] == 2097152:
                eq(m[5], f["pages"], "device %d: touched cells are the touched pages" % f["device"])

        # tables
        if "leaks" in rep:
            nrows = page.eval("document.querySelectorAll('#leaks-table tbody tr.row').length")
            eq(nrows, min(len(rep["leaks"]), 200), "leak table rows")
            if rep["leaks"]:
                first = page.eval("+document.querySelector('#leaks-table tbody tr.row').getAttribute('data-bytes')")
                eq(first, rep["leaks"][0]["bytes"], "largest leak first")
                # sort by count, ascending after a second click
                cx, cy, _, _ = page.center("#leaks-table th:nth-child(3)")
                page.click(cx, cy)
                page.click(cx, cy)
                eq(page.eval("document.getElementById('leaks-table').getAttribute('data-sort-dir')"), "asc",
                   "sorted by a click")
                counts = page.eval("Array.from(document.querySelectorAll('#leaks-table tbody tr.row td:nth-child(3)'))"
                                   ".map(function(e){return +e.textContent.replace(/,/g,'');})")
                eq(counts, sorted(counts), "rows in count order")

        # memory by phase: one row per phase and device, each row's peak
        # the report's, in the report's order
        want = [v["peak_bytes"] for p in rep.get("phases", {}).get("list", []) for v in p["devices"]][:1000]
        rows = attrs(page, "#phases-table tbody tr.row", ["data-bytes"])
        eq([int(x[0]) for x in rows], want[:200], "phases table rows")

        # the ledger of used memory: a card per device with its unexplained
        # remainder, and a table whose first row is the live allocations
        # and last the remainder, as the JSON report has them
        for L in rep.get("ledger", []):
            dev = L["device"]
            eq(attrs(page, ".card.ledger[data-device='%d']" % dev, ["data-unexplained-bytes"]),
               [[str(L["unexplained_bytes"])]], "ledger card of device %d" % dev)
            rows = attrs(page, "#ledger-table-%d tbody tr.row" % dev, ["data-bytes"])
            eq((rows[0][0], rows[-1][0]), (str(L["live_bytes"]), str(L["unexplained_bytes"])),
               "ledger table of device %d" % dev)
        eq(len(attrs(page, ".card.ledger", ["data-device"])), len(rep.get("ledger", [])), "ledger cards")

        # other processes' memory still mapped: its own card and table
        mapped = rep.get("mapped", {}).get("groups", [])
        eq(attrs(page, "#card-mapped", ["data-bytes"]),
           [[str(rep["mapped"]["bytes"])]] if mapped else [], "mapped card")
        rows = attrs(page, "#mapped-table tbody tr.row", ["data-bytes"])
        eq([int(x[0]) for x in rows], [m["bytes"] for m in mapped][:200], "mapped table rows")

        # frees of pointers with no live allocation: their table, in the
        # report's order, refused ones told apart
        sites = rep.get("invalid_frees", {}).get("sites", [])
        got = page.eval("Array.from(document.querySelectorAll('#invalid-frees-table tbody tr.row'))"
                        ".map(function(r){return [+r.cells[0].textContent.replace(/,/g,''),"
                        " r.cells[1].textContent.indexOf('refused') === 0];})")
        eq(got, [[s["count"], s["refused"]] for s in sites][:200], "invalid frees table rows")
        # a double free's row opens on the free's stack, then where the
        # address was allocated and (free stacks recorded) first freed
        for i, site in enumerate(sites[:200]):
            inside = site.get("inside_block")
            if inside:  # the block the address lies inside, as valgrind says
                text = page.eval("(function(){var r=document.querySelectorAll('#invalid-frees-table tbody tr.row')[%d];"
                                 "r.dispatchEvent(new MouseEvent('click'));var t=r.nextSibling.textContent;"
                                 "r.dispatchEvent(new MouseEvent('click'));return t;})()" % i)
                want = ["%d byte%s inside the " % (inside["offset"], "" if inside["offset"] == 1 else "s"),
                        " allocated at %s" % inside["frames"][0]["function"],
                        "#0 " + inside["frames"][0]["function"]]
                if inside["freed_time_ns"] is not None:
                    want.append(" block freed at %.2f s," % (inside["freed_time_ns"] / 1e9))
                missing = [w for w in want if w not in text]
                eq(missing, [], "invalid free %d: the block it is inside" % i)
                cell = page.eval("document.querySelectorAll('#invalid-frees-table tbody tr.row')[%d].cells[1].textContent" % i)
                eq(cell, "refused (not the start of an allocation)", "invalid free %d: its CUDA cell" % i)
            if site.get("kind") == "double free":
                cell = page.eval("document.querySelectorAll('#invalid-frees-table tbody tr.row')[%d].cells[1].textContent" % i)
                eq(cell, "refused (double free: the address was freed before)", "invalid free %d: its CUDA cell" % i)
            prev = site.get("previous_free")
            if not prev:
                continue
            text = page.eval("(function(){var r=document.querySelectorAll('#invalid-frees-table tbody tr.row')[%d];"
                             "r.dispatchEvent(new MouseEvent('click'));var t=r.nextSibling.textContent;"
                             "r.dispatchEvent(new MouseEvent('click'));return t;})()" % i)
            want = ["that address was freed before", "allocated by"]
            if prev["frames"]:
                want.append("#0 " + prev["frames"][0]["function"])
            fs = prev.get("free_stack")
            if fs and fs["frames"]:
                f = fs["frames"][0]  # the page shows the file's whole path
                want += ["and freed by", "#0 %s (" % f["function"], "%s:%d)" % (os.path.basename(f["file"]), f["line"])]
            else:
                want.append("GPULEAK_FREE_STACKS=1 records it")
            missing = [w for w in want if w not in text]
            eq(missing, [], "invalid free %d: its opened row" % i)
        oom = rep.get("out_of_memory", {}).get("events", [])
        got = page.eval("Array.from(document.querySelectorAll('#oom-table tbody tr.row'))"
                        ".map(function(r){return [+r.cells[1].textContent.replace(/,/g,''), r.cells[4].textContent];})")
        eq(got, [[e["requested_bytes"], e["api"]] for e in oom][:200], "out of memory table rows")
        torn = rep.get("teardown_leaks", {}).get("groups", [])
        got = page.eval("Array.from(document.querySelectorAll('#teardown-table tbody tr.row'))"
                        ".map(function(r){return [+r.cells[0].textContent.replace(/,/g,''), r.cells[6].textContent];})")
        eq(got, [[g["bytes"], g["teardown"]] for g in torn][:200], "teardown table rows")
        check_sections(page, rep, a.text)

        if a.growth:
            g = json.load(open(a.growth))
            rows = page.eval("document.querySelectorAll('#growth-table tbody tr.row').length")
            eq(rows, min(len(g["stacks"]), 200), "growth rows")
            flags = page.eval("Array.from(document.querySelectorAll('#growth-table tbody tr.row td:first-child'))"
                              ".filter(function(e){return e.textContent;}).length")
            eq(flags, sum(1 for s in g["stacks"][:200] if s["suspected_leak"]), "suspected leaks flagged")
            if g["stacks"]:
                eq(page.eval("+document.querySelector('svg.growth').getAttribute('data-series')"),
                   min(8, len(g["stacks"])), "growth chart lines")
                check_axes(page, "svg.growth", "growth chart")
                # one process: the snapshots sit at the times they were
                # taken, not at their numbers
                snaps = g["snapshots"]
                same = len(set((x["pid"], x["start_unix_ns"]) for x in snaps)) == 1
                ts = [x["duration_ns"] for x in snaps]
                timed = same and ts[-1] > ts[0] and all(b >= a for a, b in zip(ts, ts[1:]))
                eq(page.eval("document.querySelector('svg.growth').getAttribute('data-x')"),
                   "time" if timed else "snapshot", "growth chart: its x axis")
                if timed:
                    got = page.eval("Array.from(document.querySelectorAll('svg.growth line.snap-tick'))"
                                    ".map(function(l){return [+l.getAttribute('data-number'), +l.getAttribute('x1')];})")
                    cols = {x[0]: x[1] for x in got}
                    ml, pw = 64, 1000 - 64 - 260  # the chart's margins (js/6_growth.js)
                    for k, x in enumerate(snaps):
                        if k + 1 in cols:
                            want = ml + pw * (ts[k] - ts[0]) / (ts[-1] - ts[0])
                            check(abs(cols[k + 1] - want) < 0.01, "growth chart: snapshot %d at x %.2f, expected %.2f" %
                                  (k + 1, cols[k + 1], want))
            got = page.eval("Array.from(document.querySelectorAll('#growth-devices tbody tr.row'))"
                            ".map(function(r){return r.cells[0].textContent;})")
            eq(got, [("host" if x["device"] < 0 else "device %d" % x["device"]) for x in g["devices"]],
               "growth: one row per device")
            # the snapshot columns: every snapshot, or the first, the last and
            # evenly spaced ones between when there are more than the page's limit
            total = len(g["snapshots"])
            limit = page.eval("JSON.parse(document.getElementById('gl-data').textContent).limits.snapshot_columns")
            n = min(total, limit)
            want_cols = ["#%d" % (c * (total - 1) // (limit - 1) + 1 if total > limit else c + 1) for c in range(n)]
            got = page.eval("Array.from(document.querySelectorAll('#growth-devices th'))"
                            ".map(function(h){return h.textContent;}).filter(function(t){return / live$/.test(t);})"
                            ".map(function(t){return t.split(' ')[0];})")
            if g["devices"]:
                eq(got, want_cols, "growth: snapshot columns")
            eq(page.eval("!!document.getElementById('growth-columns')"), total > limit,
               "growth: the page says when it shows only some snapshots")
            # the diff's invalid frees and teardown leaks that changed
            frees = [s for s in g["invalid_frees"]["sites"] if len(set(s["count"])) > 1]
            got = page.eval("Array.from(document.querySelectorAll('#growth-frees tbody tr.row'))"
                            ".map(function(r){return [r.cells[0].textContent, +r.cells[1].textContent"
                            ".replace(/[+,]/g,'').replace('\u2212','-'), r.cells[%d].textContent];})" % (n + 2))
            eq(got, [["refused by CUDA" if s["refused"] else "accepted", s["change"], s["api"]] for s in frees][:200],
               "growth: invalid frees rows")
            torn = [t for t in g["teardown_leaks"]["groups"] if len(set(t["bytes"])) > 1]
            got = page.eval("Array.from(document.querySelectorAll('#growth-teardown tbody tr.row'))"
                            ".map(function(r){return [r.cells[%d].textContent, r.cells[%d].textContent];})"
                            % (n + 2, n + 3))
            eq(got, [[t["api"], t["teardown"]] for t in torn][:200], "growth: teardown rows")

        eq(page.errors, [], "console errors after interaction")
        if a.screenshot:
            page.eval("window.scrollTo(0,0)")
            page.screenshot(a.screenshot, full=a.full)
    finally:
        b.close()
    if fails:
        for f in fails:
            print("FAIL: " + f, file=sys.stderr)
        return 1
    print("ok: load %.2f s, render %.0f ms" % (load_s, render_ms))
    return 0


if __name__ == "__main__":
    sys.exit(main())
