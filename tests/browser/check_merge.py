#!/usr/bin/env python3
"""Opens a merge page (gpuleak-report --html OUT merge ...) in headless
Chromium and prints what it drew, as JSON, for tests/t_html_merge.sh:

  check_merge.py PAGE.html OUT.json

errors (console errors and exceptions), requests (besides the page), the
imbalance cards' data-* attributes, each table's rows as text, the bars
(rank, measure, bytes), and the stack a click on the first row of the
"leaks on some ranks only" table opens.  Exits 1 when the page does not
become ready."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import write_page_json  # noqa: E402

DRAWN = """JSON.stringify({
  cards: Array.from(document.querySelectorAll('.card.imbalance')).map(function (c) {
    return [c.getAttribute('data-measure'), c.getAttribute('data-rank'), c.getAttribute('data-ratio'),
            c.getAttribute('data-max-bytes'), c.textContent]; }),
  some: document.getElementById('card-some-ranks').getAttribute('data-sites'),
  tables: Array.from(document.querySelectorAll('table.sortable')).reduce(function (o, t) {
    o[t.id] = Array.from(t.querySelectorAll('tr.row')).map(function (r) {
      return Array.from(r.children).map(function (c) { return c.textContent; }).join(' | '); });
    return o; }, {}),
  bars: Array.from(document.querySelectorAll('svg.ranks rect.bar')).map(function (b) {
    return [+b.getAttribute('data-rank'), b.getAttribute('data-measure'), +b.getAttribute('data-bytes')]; })
})"""


def drawn_of(b, page):
    drawn = json.loads(page.eval(DRAWN))
    page.eval("document.querySelector('#some-ranks-table tr.row').click()")
    drawn["stack"] = page.eval("(document.querySelector('#some-ranks-table tr.stack') || {}).textContent || null")
    b.pump(0.1)
    drawn["errors"] = page.errors
    drawn["requests"] = page.other_requests()
    return drawn


if __name__ == "__main__":
    write_page_json(sys.argv[1], sys.argv[2], drawn_of, "check_merge")
