#!/usr/bin/env bash
# Unit test of the lock (tests/unit/lock_mutual.c against interpose/base/
# lock.h as this build compiled it: the futex word of a release build, the
# checked pthread mutex of a sanitizer one): exclusion among 4 threads to
# the exact count, trylock, the recursive class, and a lock re-made held.
source "$ROOT/tests/lib.sh"
expect_eq "$("$TPROG/unit/lock_mutual")" ok "the lock"
