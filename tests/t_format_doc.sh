#!/usr/bin/env bash
# The field tables of docs/snapshot-format.md are generated from the one
# definition of the format (common/snapshot_fields.h) by
# scripts/format-doc.py: this fails while they differ (run the script to
# update them), and checks that a stale table (EVENTS' mem_free moved, as
# if by hand) is noticed.
source "$ROOT/tests/lib.sh"
doc_table_check format-doc.py "$TPROG/snapfields" docs/snapshot-format.md \
    '| 56 | u64 mem_free |' '| 54 | u64 mem_free |'
echo ok
