#!/usr/bin/env bash
# Unit tests of the reporter's analyses (tests/unit/analysis_*.c, issue 37):
# snapshots built in memory through the format's codec and read by the real
# reader; leaks, peak composition, ledger, fragmentation, history, phases,
# diff and merge checked to the byte, the count and the frame.  In process,
# linked from report/model, report/analysis and report/util only.
source "$ROOT/tests/lib.sh"
for t in analysis_report analysis_history analysis_multi analysis_stacks analysis_oomkind analysis_growth; do
    "$TPROG/unit/$t" || fail "$t"
done
echo ok
