"""What the doc generators share (scripts/format-doc.py, scripts/lock-doc.py,
scripts/sections-doc.py):
a generated section of a Markdown file is rewritten in place, or, with
--check, compared and the difference shown, so CI fails while the committed
doc and its source disagree."""
import argparse
import difflib
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tool_doc_args(doc):
    """The options of a generator whose text a C tool prints: --check,
    --tool PATH (that tool, built), --doc PATH (default doc)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--tool")
    ap.add_argument("--doc", default=doc)
    return ap.parse_args()


def build_tool(tmp, source, flags):
    """source (a path under the tree) compiled with $CC and flags into the
    directory tmp; the program's path."""
    exe = os.path.join(tmp, os.path.splitext(os.path.basename(source))[0])
    cc = os.environ.get("CC", "cc")
    subprocess.run([cc, "-std=gnu11"] + flags + [os.path.join(ROOT, source), "-o", exe], check=True)
    return exe


def write_or_check(path, old, new, check, tool, source):
    """0 when path holds new (written now unless check); 1 when check finds
    it out of date (a unified diff on stdout, one line on stderr)."""
    if new == old:
        return 0
    if check:
        sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                                   path, "%s (from %s)" % (path, source)))
        print("%s: %s is out of date: run scripts/%s.py" % (tool, path, tool), file=sys.stderr)
        return 1
    with open(path, "w") as f:
        f.write(new)
    return 0
