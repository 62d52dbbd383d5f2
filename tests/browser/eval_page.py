#!/usr/bin/env python3
"""Opens a gpuleak HTML page in headless Chromium, waits until it is drawn
(body[data-ready]) and writes {"value": EXPR's value, "errors": console
errors and exceptions, "requests": URLs other than the page's}, as JSON:

  eval_page.py PAGE.html OUT.json EXPR

EXPR is JavaScript evaluated in the page; its value must be JSON-able.
Exits 1 when the page does not become ready."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import write_page_json  # noqa: E402


def value_of(expr):
    return lambda b, page: {"value": page.eval(expr), "errors": page.errors, "requests": page.other_requests()}


if __name__ == "__main__":
    page_path, out, expr = sys.argv[1:4]
    write_page_json(page_path, out, value_of(expr), "eval_page")
