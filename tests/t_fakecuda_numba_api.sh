# fakecuda: what numba's driver binding needs beyond memory -- device UUID,
# compute capability, peer access, events, stream waits and callbacks -- and
# unified addressing's rules: frees with no context current, pinned host
# memory reached by device memsets, copies and cuMemGetAddressRange
# (tests/fakecuda/fc_numba_api_test.c).
source "$ROOT/tests/lib.sh"
for s in device events unified; do
    fc "$TPROG/fc_numba_api_test" "$s" || fail "scenario $s"
done
