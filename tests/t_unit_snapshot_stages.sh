#!/usr/bin/env bash
# Unit test of the snapshot writer's table (tests/unit/snapshot_stages.c,
# interpose/control/snapshot_stages.h): one writer stage for every record
# type of the format's list (GL_RECORD_LIST, which the reader and the docs
# follow), none for a type it does not list, PROCESS first, END last, and
# PyTorch's records after the ones they name.  Nothing linked.
source "$ROOT/tests/lib.sh"
out=$("$TPROG/unit/snapshot_stages") || fail "snapshot stages"
expect_eq "$out" "ok: 22 record types, 22 writer stages" "table size"
echo ok
