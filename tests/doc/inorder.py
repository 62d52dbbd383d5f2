#!/usr/bin/env python3
"""inorder.py [--from-first] WANT GOT: every line of WANT is a line of
GOT, in order; a WANT line `...` stands for any run of GOT lines left out,
and between other lines none may be.  The first line may come anywhere;
with --from-first it must be GOT's first (a WANT that starts with `...`
still may skip).  For the outputs a document shows."""
import sys

args = sys.argv[1:]
from_first = args[:1] == ["--from-first"]
if from_first:
    args = args[1:]
want = open(args[0]).read().splitlines()
got = open(args[1]).read().splitlines()
i, skip = 0, not from_first
for w in want:
    if w == "...":
        skip = True
        continue
    if skip:
        while i < len(got) and got[i] != w:
            i += 1
    if i >= len(got) or got[i] != w:
        sys.exit("not found where expected: %r" % w)
    i += 1
    skip = False
