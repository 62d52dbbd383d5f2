#!/usr/bin/env bash
# Unit test of interpose/cuda/ (tests/unit/cuda_where.c): array sizes, pool
# kinds, and where.c's device and context asked of fakecuda's driver and
# runtime in process, without libgpuleak.so or any hook.
source "$ROOT/tests/lib.sh"
FAKECUDA_DEVICES=2 fc "$TPROG/unit/cuda_where" || fail "cuda_where"
echo ok
