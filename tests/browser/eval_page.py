#!/usr/bin/env python3
"""Opens a gpuleak HTML page in headless Chromium, waits until it is drawn
(body[data-ready]) and writes {"value": EXPR's value, "errors": console
errors and exceptions, "requests": URLs other than the page's}, as JSON:

  eval_page.py PAGE.html OUT.json EXPR

EXPR is JavaScript evaluated in the page; its value must be JSON-able.
Exits 1 when the page does not become ready."""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser, CDPError  # noqa: E402


def main():
    page_path, out, expr = sys.argv[1:4]
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
        value = page.eval(expr)
        res = {"value": value, "errors": page.errors, "requests": [u for u in page.requests if u != url]}
    finally:
        b.close()
    json.dump(res, open(out, "w"), indent=1)


if __name__ == "__main__":
    try:
        main()
    except CDPError as e:
        sys.exit("eval_page: %s" % e)
