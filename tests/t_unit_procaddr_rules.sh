#!/usr/bin/env bash
# Unit test of the cuGetProcAddress / cudaGetDriverEntryPoint ABI rules
# (tests/unit/procaddr_rules.c, resolve/entry_abi.c): which hook a query of
# (name, cudaVersion, flags) gets, in process, without a driver.
source "$ROOT/tests/lib.sh"
"$TPROG/unit/procaddr_rules" || fail "entry-point ABI rules"
echo ok
