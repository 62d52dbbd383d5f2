# fakecuda: a program linked with libcudart_static.a works, and its cuda*
# symbols are inside the executable and not exported (not interposable).
source "$ROOT/tests/lib.sh"
P=$TPROG/fc_static_test
fc "$P"
dyn=$(nm -D "$P") all=$(nm "$P") needed=$(readelf -d "$P" | grep NEEDED)
if grep -q ' cudaMalloc$' <<<"$dyn"; then fail "static program exports cudaMalloc"; fi
grep -q ' t cudaMalloc$' <<<"$all" || fail "cudaMalloc is not a local symbol of the program"
if grep -q libcudart <<<"$needed"; then fail "static program needs libcudart"; fi
