#!/usr/bin/env python3
"""The fenced blocks of a Markdown page that tests run (tests/t_doc_*.sh).

A command block is fenced ```sh and has, on the line before its fence,
either <!-- test: ID (tests/t_NAME.sh) --> (that test runs it verbatim) or
<!-- not run: WHY -->.  A file block (```python and the like) preceded by
<!-- file: NAME --> is a fixture the tests write as NAME before running the
commands, so the programs a page shows are the ones run.

  docblocks.py get PAGE ID        the commands of block ID
  docblocks.py file PAGE NAME     the text of file block NAME
  docblocks.py output PAGE ID     the output a page shows for block ID, marked
                                  <!-- output: ID --> (its lines are checked
                                  in order; `...` stands for lines left out)
  docblocks.py ids PAGE TEST      the IDs of the blocks TEST runs, in order
  docblocks.py lint PAGE [UNTIL]  fails on a command block with no marker, or
                                  on a command outside ```sh, up to the line
                                  UNTIL (the end of a page's how-to)
"""
import re
import sys

MARK = re.compile(r"<!-- (test|not run|file|output): ?([^ ]*)(?: \((tests/t_[a-z_]+\.sh)\))?.*-->$")
# First words that make a block a command, whatever its fence says.
COMMAND = re.compile(r"^(gpuleak|make|LD_PRELOAD=|PY=|export |python3? |pytest|build/|\$ )")


def blocks(path, until=None):
    """(marker kind, marker arg, test, fence info, first line no, lines)."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out, i = [], 0
    while i < len(lines):
        if until is not None and lines[i] == until:
            break
        if lines[i].startswith("```"):
            info = lines[i][3:].strip()
            m = MARK.match(lines[i - 1]) if i else None
            j = i + 1
            while j < len(lines) and lines[j] != "```":
                j += 1
            out.append((m.group(1) if m else None, m.group(2) if m else None,
                        m.group(3) if m else None, info, i + 1, lines[i + 1:j]))
            i = j + 1
            continue
        i += 1
    return out


def main(argv):
    what, path = argv[1], argv[2]
    if what in ("get", "file", "output"):
        kind = {"get": "test"}.get(what, what)
        found = [b for b in blocks(path) if b[0] == kind and b[1] == argv[3]]
        if len(found) != 1:
            sys.exit("%s: %d blocks marked %s: %s" % (path, len(found), kind, argv[3]))
        print("\n".join(found[0][5]))
    elif what == "ids":
        print("\n".join(b[1] for b in blocks(path) if b[0] == "test" and b[2] == argv[3]))
    elif what == "lint":
        bad = []
        for kind, arg, test, info, line, text in blocks(path, argv[3] if len(argv) > 3 else None):
            first = next((t for t in text if t.strip()), "")
            if info == "sh" and kind not in ("test", "not run"):
                bad.append("%s:%d: a ```sh block without <!-- test: ... --> or <!-- not run: ... -->" % (path, line))
            elif info != "sh" and COMMAND.match(first):
                bad.append("%s:%d: commands outside a ```sh block: %s" % (path, line, first))
            elif kind == "test" and not test:
                bad.append("%s:%d: test marker without the test that runs it" % (path, line))
        if bad:
            sys.exit("\n".join(bad))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
