#!/usr/bin/env bash
# Unit test of the lock-order check (tests/unit/lock_rank.c against
# interpose/base/lock.c and the ranks of interpose/base/lock_rank.h): locks
# taken in rank order pass; each broken rule aborts (SIGABRT) with the one
# line that names the lock taken and the lock held.
source "$ROOT/tests/lib.sh"
prog="$TPROG/unit/lock_rank"
out=$("$prog" ok 2>err.txt) || fail "locks in order: rc $?: $(cat err.txt)"
expect_eq "$out" ok "locks in order"
expect_eq "$(cat err.txt)" "" "locks in order, stderr"

violation() {  # CASE EXPECTED-LINE
    local rc=0
    "$prog" "$1" >out.txt 2>err.txt || rc=$?
    expect_eq "$rc" 134 "$1: exit status (SIGABRT)"
    expect_eq "$(cat out.txt)" "" "$1: stdout"
    expect_eq "$(cat err.txt)" "$2" "$1: the one line"
}
violation inverted "gpuleak: lock order violation: taking device (rank 80) while holding shard (rank 90)"
violation lanes-descending \
    "gpuleak: lock order violation: taking lane (rank 70, key 5) while holding lane (rank 70, key 6)"
violation two-leaves "gpuleak: lock order violation: taking stacks_lock (rank 100) while holding vmm_lock (rank 100)"
violation again-not-last \
    "gpuleak: lock order violation: taking walk_lock (rank 40) while holding writer_mutex (rank 50)"
violation again-not-recursive \
    "gpuleak: lock order violation: taking writer_mutex (rank 50) while holding writer_mutex (rank 50)"
violation fork-not-remade \
    "gpuleak: lock order violation: walk_lock (rank 40), not re-made by fork's child handlers"
echo ok
