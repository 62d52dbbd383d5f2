#!/usr/bin/env bash
# Unit tests of the reporter's analyses (tests/unit/analysis_*.c, issue 37):
# snapshots built in memory through the format's codec and read by the real
# reader; leaks, peak composition, ledger, fragmentation, history, phases,
# diff, merge and teardowns checked to the byte, the count and the frame.
# In process, linked from report/model, report/analysis and report/util
# only.  Every tests/unit/analysis_*.c is run: a new one needs no edit here
# or in a make file (tests/unit/module.mk), and one that was not built fails.
source "$ROOT/tests/lib.sh"
run_unit_programs analysis 6
echo ok
