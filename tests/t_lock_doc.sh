#!/usr/bin/env bash
# The lock table of docs/reliability.md is generated from the one list of
# every lock (interpose/base/lock_rank.h) by scripts/lock-doc.py: this fails
# while they differ (run the script to update it), and checks that a stale
# table (the shard ranked below the device, as if by hand) is noticed.
source "$ROOT/tests/lib.sh"
doc_table_check lock-doc.py "$TPROG/unit/lock_table" docs/reliability.md \
    '| `shard` | 90 |' '| `shard` | 75 |'
echo ok
