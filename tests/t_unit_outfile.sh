#!/usr/bin/env bash
# Unit test of snapshot file naming and creation (tests/unit/outfile.c,
# interpose/control/outfile.c): pattern expansion, the next free %n, the
# atomic 0600 temporary and its rename, and every I/O failure through the
# replaceable gl_outfile_io, leaving no file behind.  In process; the
# preloaded end-to-end tests (t_full_disk, t_hostile_output) remain.
source "$ROOT/tests/lib.sh"
"$TPROG/unit/outfile" || fail "outfile"
echo ok
