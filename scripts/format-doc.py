#!/usr/bin/env python3
"""Regenerates the tables of docs/snapshot-format.md from the field lists of
common/snapshot_fields.h, the one definition of the format.

Each table sits between two marker comments:
    <!-- generated: fields ALLOCS -->   (or: records)
    ...
    <!-- end generated -->
and is replaced by what tests/report/snapfields.c prints for it (the C
expansion of the lists, so the offsets are the compiler's, not a parser's).

    scripts/format-doc.py            rewrite the docs in place
    scripts/format-doc.py --check    exit 1 if they are out of date
    --tool PATH                      a built snapfields (default: compile
                                     one with $CC into a temporary directory)
"""
import os
import re
import subprocess
import sys
import tempfile

import docgen  # scripts/docgen.py, beside this file

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "snapshot-format.md")
MARK = re.compile(r"^<!-- generated: (fields [A-Z_]+|records) -->\n(.*?)^<!-- end generated -->\n",
                  re.M | re.S)


def render(tool, what):
    args = [tool] + (["records"] if what == "records" else ["doc", what.split()[1]])
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def main():
    a = docgen.tool_doc_args(DOC)
    with tempfile.TemporaryDirectory() as tmp:
        tool = a.tool or docgen.build_tool(tmp, "tests/report/snapfields.c",
                                           ["-D_GNU_SOURCE", "-I" + os.path.join(ROOT, "common")])
        old = open(a.doc).read()
        seen = []

        def sub(m):
            seen.append(m.group(1))
            return "<!-- generated: %s -->\n%s<!-- end generated -->\n" % (m.group(1), render(tool, m.group(1)))

        new = MARK.sub(sub, old)
    if not seen:
        sys.exit("format-doc: no generated tables in %s" % a.doc)
    return docgen.write_or_check(a.doc, old, new, a.check, "format-doc", "common/snapshot_fields.h")


if __name__ == "__main__":
    sys.exit(main())
