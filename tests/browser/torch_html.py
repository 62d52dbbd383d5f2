#!/usr/bin/env python3
"""Opens a gpuleak HTML page in headless Chromium and prints what it shows
of PyTorch's view, one JSON document, for tests/t_torch_real_html.sh to
compare exactly:

  torch_html.py PAGE.html [--hover]

  errors        console errors and requests beyond the page itself
  nothing       how many "Nothing to show." the page says
  card          #card-torch: data-bytes, data-tensors, data-lines, its label
  leaks_note    the leaks panel's note when PyTorch's cache holds the memory
  leaks_none    the leaks table's place when there are none
  tensor_flame  the tensors' flame graph: total bytes, its frames' names and bytes
  lines         #torch-lines-table rows (their cells' text)
  map           per device: cells inside PyTorch segments, the segment table
                under the map (#torch-map-N rows); with --hover, the tooltip
                over the first such cell
  growth_torch  svg.growth-torch: series labels; #growth-torch-table rows
  growth_notes  #growth-table rows' first cell and last cell
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser, CDPError  # noqa: E402

ROWS = """(function(sel){var t=document.querySelector(sel); if(!t) return null;
  return Array.from(t.querySelectorAll('tbody tr.row')).map(function(r){
    return Array.from(r.cells).map(function(c){return c.textContent;});});})(%s)"""


def rows(page, sel):
    return page.eval(ROWS % json.dumps(sel))


def main():
    path = sys.argv[1]
    hover = "--hover" in sys.argv[2:]
    b = Browser()
    try:
        page = b.new_page(1280, 900)
        page.open_ready(path)
        out = {}
        out["errors"] = page.errors + page.other_requests()
        out["nothing"] = page.eval("Array.from(document.querySelectorAll('p')).filter(function(p){"
                                   "return p.textContent === 'Nothing to show.';}).length")
        out["card"] = page.eval("(function(){var c=document.getElementById('card-torch'); return c ? "
                                "[c.getAttribute('data-bytes'), c.getAttribute('data-tensors'), "
                                "c.getAttribute('data-lines'), c.querySelector('.l').textContent] : null;})()")
        out["leaks_note"] = page.eval("(function(){var e=document.getElementById('leaks-torch-note');"
                                      "return e ? e.textContent : null;})()")
        out["leaks_none"] = page.eval("(function(){var e=document.getElementById('leaks-none');"
                                      "return e ? e.textContent : null;})()")
        out["tensor_flame"] = page.eval("(function(){var s=document.querySelector(\"svg.flame[data-kind='tensors']\");"
                                        "if(!s) return null; return [s.getAttribute('data-total-bytes'),"
                                        "Array.from(s.querySelectorAll('g.fnode')).map(function(g){"
                                        "return g.getAttribute('data-name') + ' ' + g.getAttribute('data-bytes');})];})()")
        out["lines"] = rows(page, "#torch-lines-table")
        maps = page.eval("Array.from(document.querySelectorAll('svg.addrmap')).map(function(s){"
                         "return [+s.getAttribute('data-device'), s.querySelectorAll('rect.cell.torch').length];})")
        out["map"] = []
        for dev, ncells in maps:
            m = {"device": dev, "torch_cells": ncells, "table": rows(page, "#torch-map-%d" % dev)}
            if hover and ncells:
                x, y, _, _ = page.center("svg.addrmap[data-device='%d'] rect.cell.torch" % dev)
                page.mouse("mouseMoved", x, y)
                m["tip"] = page.eval("document.getElementById('tip').textContent")
            out["map"].append(m)
        out["growth_torch"] = page.eval("(function(){var s=document.querySelector('svg.growth-torch'); if(!s) return null;"
                                        "return Array.from(s.querySelectorAll('text.series')).map(function(t){"
                                        "return t.textContent;});})()")
        out["growth_torch_rows"] = rows(page, "#growth-torch-table")
        g = rows(page, "#growth-table")
        out["growth_notes"] = [[r[0], r[-1]] for r in g] if g is not None else None
        out["errors"] += page.errors[len(out["errors"]):]
    finally:
        b.close()
    print(json.dumps(out, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except CDPError as e:
        print("torch_html.py: %s" % e, file=sys.stderr)
        sys.exit(1)
