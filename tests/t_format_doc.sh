#!/usr/bin/env bash
# The field tables of docs/snapshot-format.md are generated from the one
# definition of the format (common/snapshot_fields.h) by
# scripts/format-doc.py: this fails while they differ (run the script to
# update them), and checks that a stale table is noticed.
source "$ROOT/tests/lib.sh"
python3 "$ROOT/scripts/format-doc.py" --check --tool "$TPROG/snapfields" ||
    fail "docs/snapshot-format.md is out of date: run scripts/format-doc.py"
# a table edited by hand (EVENTS' mem_free moved) is out of date
sed 's/^| 56 | u64 mem_free |/| 54 | u64 mem_free |/' "$ROOT/docs/snapshot-format.md" > stale.md
! cmp -s stale.md "$ROOT/docs/snapshot-format.md" || fail "the docs have no EVENTS mem_free row at 56"
rc=0; python3 "$ROOT/scripts/format-doc.py" --check --tool "$TPROG/snapfields" --doc stale.md > diff.txt 2>&1 || rc=$?
expect_eq "$rc" 1 "a stale table"
grep -q '^-| 54 | u64 mem_free' diff.txt || fail "the diff names the stale row: $(cat diff.txt)"
echo ok
