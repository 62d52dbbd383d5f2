#!/usr/bin/env python3
"""inorder.py WANT GOT: every line of WANT is a line of GOT, in order; a
WANT line `...` stands for any run of GOT lines left out, and between
other lines none may be.  For the outputs a document shows."""
import sys

want = open(sys.argv[1]).read().splitlines()
got = open(sys.argv[2]).read().splitlines()
i, skip = 0, True  # the first line may come anywhere
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
