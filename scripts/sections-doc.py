#!/usr/bin/env python3
"""Rewrites the report's section names in the `--sections LIST` row of
docs/reporter.md from the one list, `gpuleak-report --help` (the registry
of report/render/sections.h).  The other lists a user reads are not copies:
the man page's is filled in by the build (tools/module.mk) and the bash
completion asks `gpuleak report --list-sections`.  tests/t_doc_sections.sh
fails while any of the three differs from --help.

    scripts/sections-doc.py --report build/bin/gpuleak-report          rewrite
    scripts/sections-doc.py --report build/bin/gpuleak-report --check  exit 1 if stale
    --md FILE    another copy (the test's stale one)
"""
import argparse
import os
import re
import subprocess
import sys

import docgen  # scripts/docgen.py, beside this file

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def help_names(report):
    out = subprocess.run([report, "--help"], stdout=subprocess.PIPE, text=True, check=True).stdout
    m = re.search(r"--sections LIST[^\n]*\n\s*(\S+)\n", out)
    if not m:
        sys.exit("sections-doc: no --sections list in %s --help" % report)
    return m.group(1).split(",")


def fix_md(text, names):
    return re.sub(r"^(\| `--sections LIST` \| `)[^`]*`", lambda m: m.group(1) + ",".join(names) + "`", text,
                  flags=re.M)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--report", default=os.path.join(ROOT, "build", "bin", "gpuleak-report"))
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--md", default=os.path.join(ROOT, "docs", "reporter.md"))
    a = ap.parse_args()
    names = help_names(a.report)
    with open(a.md) as f:
        old = f.read()
    return docgen.write_or_check(a.md, old, fix_md(old, names), a.check, "sections-doc", "gpuleak-report --help")


if __name__ == "__main__":
    sys.exit(main())
