"""What the doc generators share (scripts/format-doc.py, scripts/lock-doc.py):
a generated section of a Markdown file is rewritten in place, or, with
--check, compared and the difference shown, so CI fails while the committed
doc and its source disagree."""
import difflib
import sys


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
