#!/usr/bin/env python3
"""Regenerates the lock table of docs/reliability.md from the one list of
every lock with its rank, interpose/base/lock_rank.h.

The table sits between two marker comments:
    <!-- generated: locks -->
    ...
    <!-- end generated -->
and is replaced by what tests/unit/lock_table.c prints (the C expansion of
the list, so the text is the compiler's reading, not a parser's).

    scripts/lock-doc.py            rewrite the doc in place
    scripts/lock-doc.py --check    exit 1 if it is out of date
    --tool PATH                    a built lock_table (default: compile one
                                   with $CC into a temporary directory)
"""
import os
import re
import subprocess
import sys
import tempfile

import docgen  # scripts/docgen.py, beside this file

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "reliability.md")
MARK = re.compile(r"^<!-- generated: locks -->\n(.*?)^<!-- end generated -->\n", re.M | re.S)


def main():
    a = docgen.tool_doc_args(DOC)
    with tempfile.TemporaryDirectory() as tmp:
        tool = a.tool or docgen.build_tool(tmp, "tests/unit/lock_table.c", ["-I" + os.path.join(ROOT, "interpose")])
        table = subprocess.run([tool], check=True, capture_output=True, text=True).stdout
    old = open(a.doc).read()
    new, n = MARK.subn(lambda m: "<!-- generated: locks -->\n%s<!-- end generated -->\n" % table, old)
    if n != 1:
        sys.exit("lock-doc: %d generated lock tables in %s, expected 1" % (n, a.doc))
    return docgen.write_or_check(a.doc, old, new, a.check, "lock-doc", "interpose/base/lock_rank.h")


if __name__ == "__main__":
    sys.exit(main())
