#!/usr/bin/env bash
# Unit test of the live table, the per-device accounting and the lanes'
# credit (tests/unit/live_table.c, interpose/state/): records, peak and its
# composition, 100,000 records, and threads holding credit while a new peak
# is set, checked against a serial replay of the history.  In process, linked
# from state/ and base/ objects only.
source "$ROOT/tests/lib.sh"
"$TPROG/unit/live_table" || fail "live table"
echo ok
