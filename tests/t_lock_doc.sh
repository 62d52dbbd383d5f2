#!/usr/bin/env bash
# The lock table of docs/reliability.md is generated from the one list of
# every lock (interpose/base/lock_rank.h) by scripts/lock-doc.py: this fails
# while they differ (run the script to update it), and checks that a stale
# table is noticed.
source "$ROOT/tests/lib.sh"
python3 "$ROOT/scripts/lock-doc.py" --check --tool "$TPROG/unit/lock_table" ||
    fail "docs/reliability.md is out of date: run scripts/lock-doc.py"
# a table edited by hand (the shard ranked below the device) is out of date
sed 's/^| `shard` | 90 |/| `shard` | 75 |/' "$ROOT/docs/reliability.md" > stale.md
! cmp -s stale.md "$ROOT/docs/reliability.md" || fail "the docs have no shard row at rank 90"
rc=0; python3 "$ROOT/scripts/lock-doc.py" --check --tool "$TPROG/unit/lock_table" --doc stale.md > diff.txt 2>&1 || rc=$?
expect_eq "$rc" 1 "a stale table"
grep -q '^-| `shard` | 75 |' diff.txt || fail "the diff names the stale row: $(cat diff.txt)"
echo ok
