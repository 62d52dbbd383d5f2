#!/usr/bin/env python3
"""Rewrites the report's section names where the documentation lists them,
from the one list, `gpuleak-report --help` (the registry of
report/render/sections.h): the man page's --sections paragraph, the
`--sections LIST` row of docs/reporter.md and the names the bash
completion offers after --sections.  A name keeps the aside the man page
gives it ("torch (PYTORCH'S CACHE, ...)"); a new one comes bare.
tests/t_doc_sections.sh fails while a copy differs from --help.

    scripts/sections-doc.py --report build/bin/gpuleak-report          rewrite
    scripts/sections-doc.py --report build/bin/gpuleak-report --check  exit 1 if stale
    --man FILE --md FILE --completion FILE    other copies (the tests' stale ones)
"""
import argparse
import os
import re
import subprocess
import sys
import textwrap

import docgen  # scripts/docgen.py, beside this file

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAN_HEAD = "\\fB\\-\\-sections\\fR \\fIlist\\fR\n"
MAN_WIDTH = 78


def help_names(report):
    out = subprocess.run([report, "--help"], stdout=subprocess.PIPE, text=True, check=True).stdout
    m = re.search(r"--sections LIST[^\n]*\n\s*(\S+)\n", out)
    if not m:
        sys.exit("sections-doc: no --sections list in %s --help" % report)
    return m.group(1).split(",")


def split_items(text):
    """'a, b (x, y), c' -> ['a', 'b (x, y)', 'c']: commas inside parentheses
    belong to an aside."""
    items, depth, cur = [], 0, ""
    for c in text:
        depth += (c == "(") - (c == ")")
        if c == "," and depth == 0:
            items.append(cur.strip())
            cur = ""
        else:
            cur += c
    return items + [cur.strip()] if cur.strip() else items


def man_paragraph(old, names):
    """The man page's paragraph after --sections, with names in --help's order."""
    text = " ".join(old.split())
    m = re.fullmatch(r"comma-separated: (.*) \(default all\)\.", text)
    if not m:
        sys.exit("sections-doc: the man page's --sections paragraph is not 'comma-separated: ... (default all).'")
    asides = {i.split(" ", 1)[0]: i for i in split_items(m.group(1))}
    body = "comma-separated: %s (default all)." % ", ".join(asides.get(n, n) for n in names)
    return "\n".join(textwrap.wrap(body, MAN_WIDTH, break_on_hyphens=False)) + "\n"


def fix_man(text, names):
    start = text.index(MAN_HEAD) + len(MAN_HEAD)
    end = text.index("\n.TP\n", start) + 1
    return text[:start] + man_paragraph(text[start:end], names) + text[end:]


def fix_md(text, names):
    return re.sub(r"^(\| `--sections LIST` \| `)[^`]*`", lambda m: m.group(1) + ",".join(names) + "`", text,
                  flags=re.M)


def fix_completion(text, names):
    return re.sub(r'(--sections\) _gpuleak_offer -W ")[^"]*( all")', lambda m: m.group(1) + " ".join(names) + m.group(2),
                  text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--report", default=os.path.join(ROOT, "build", "bin", "gpuleak-report"))
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--man", default=os.path.join(ROOT, "tools", "man", "gpuleak-report.1"))
    ap.add_argument("--md", default=os.path.join(ROOT, "docs", "reporter.md"))
    ap.add_argument("--completion", default=os.path.join(ROOT, "tools", "gpuleak.bash-completion"))
    a = ap.parse_args()
    names = help_names(a.report)
    rc = 0
    for path, fix in ((a.man, fix_man), (a.md, fix_md), (a.completion, fix_completion)):
        with open(path) as f:
            old = f.read()
        rc |= docgen.write_or_check(path, old, fix(old, names), a.check, "sections-doc", "gpuleak-report --help")
    return rc


if __name__ == "__main__":
    sys.exit(main())
