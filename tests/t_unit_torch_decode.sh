#!/usr/bin/env bash
# Unit test of the decoder of PyTorch's answer (tests/unit/torch_decode.c,
# interpose/control/torch_decode.c): answers recorded from real PyTorch on
# fakecuda (tests/unit/data/torch_answers/README), every prefix of them,
# and planted faults.  In process, no Python; the end-to-end t_torch_real*
# tests remain.
source "$ROOT/tests/lib.sh"
"$TPROG/unit/torch_decode" "$ROOT/tests/unit/data/torch_answers" || fail "torch_decode"
echo ok
