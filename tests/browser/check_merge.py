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
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser, CDPError  # noqa: E402

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


def main():
    page_path, out = sys.argv[1], sys.argv[2]
    b = Browser()
    try:
        page = b.new_page()
        url = "file://" + os.path.abspath(page_path)
        page.goto(url, timeout=60)
        deadline = time.time() + 30
        while page.eval("document.body && document.body.getAttribute('data-ready')") != "1":
            if time.time() > deadline:
                raise CDPError("page never became ready")
            time.sleep(0.05)
        b.pump(0.3)  # late console messages
        drawn = json.loads(page.eval(DRAWN))
        page.eval("document.querySelector('#some-ranks-table tr.row').click()")
        drawn["stack"] = page.eval("(document.querySelector('#some-ranks-table tr.stack') || {}).textContent || null")
        b.pump(0.1)
        drawn["errors"] = page.errors
        drawn["requests"] = [u for u in page.requests if u != url]
    finally:
        b.close()
    json.dump(drawn, open(out, "w"), indent=1)


if __name__ == "__main__":
    try:
        main()
    except CDPError as e:
        sys.exit("check_merge: %s" % e)
