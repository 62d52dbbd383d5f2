# fakecuda's cuDNN 9 stand-ins (issue 44): libcudnn.so.9 and the
# sub-libraries export exactly the C names of their lists
# (tools/fakecuda/cudnn/exports/), each under its soname's version node,
# and the lists are what this toolkit's libraries export; the backend API
# answers the frontend's sequence (tests/fakecuda/fc_cudnn_test.c); a stub
# returns success, saying so only under FAKECUDNN_TRACE=1.
source "$ROOT/tests/lib.sh"
LISTS=$ROOT/tools/fakecuda/cudnn/exports
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
sonames="libcudnn.so.9 libcudnn_graph.so.9 libcudnn_ops.so.9 libcudnn_cnn.so.9 libcudnn_adv.so.9
         libcudnn_heuristic.so.9 libcudnn_engines_precompiled.so.9 libcudnn_engines_runtime_compiled.so.9"

for so in $sonames; do
    lib=$FAKECUDA/$so
    [ -e "$lib" ] || fail "$so not built"
    expect_eq "$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')" "$so" "$so: its soname"
    nm -D --defined-only --with-symbol-versions "$lib" >"$so.nm"
    awk '$2 == "T" { print $3 }' "$so.nm" | LC_ALL=C sort >"$so.fake"
    sed "s/\$/@@$so/" "$LISTS/$so.txt" | LC_ALL=C sort >"$so.want"
    diff -u "$so.want" "$so.fake" >"$so.diff" || fail "$so exports differ from its list: $(head -5 "$so.diff")"
    expect_eq "$(awk '$2 != "T" { print $2, $3 }' "$so.nm")" "A $so" "$so: the version node"
done
expect_eq "$(cat "$LISTS"/*.txt | wc -l)" 457 "names in the lists"
expect_eq "$(wc -l <"$LISTS/libcudnn.so.9.txt")" 224 "names of libcudnn.so.9"

for s in backend attributes versions legacy; do
    "$TPROG/fc_cudnn_test" "$s" >out.txt 2>err.txt || fail "scenario $s: $(cat err.txt)"
    expect_eq "$(cat out.txt)" "ok $s" "scenario $s"
    expect_eq "$(cat err.txt)" "" "scenario $s: nothing on stderr without FAKECUDNN_TRACE"
done
# A fixed workspace (the policy's knob) reaches the configuration and the
# plan, and Execute wants a workspace pointer for it.
FAKECUDNN_WORKSPACE_BYTES=4096 "$TPROG/fc_cudnn_test" backend >/dev/null || fail "backend with a 4096-byte workspace"
FAKECUDNN_WORKSPACE_BYTES=4096 "$TPROG/fc_cudnn_test" versions >/dev/null
# The trace: each (call, descriptor type, attribute) once.
FAKECUDNN_TRACE=1 "$TPROG/fc_cudnn_test" backend >/dev/null 2>trace.txt || fail "traced backend scenario"
expect_eq "$(grep -c '^fakecudnn: cudnnBackendSetAttribute desc 17 attr 902$' trace.txt)" 1 "a traced set, once"
expect_eq "$(grep -c '^fakecudnn: cudnnBackendGetAttribute (unset) desc 2 attr 1303$' trace.txt)" 1 "an unset get, traced"

# Stubs: success, quiet; under the trace one line, once.
cat >stub.py <<'PY'
import ctypes, sys
dnn = ctypes.CDLL(sys.argv[1])
print(dnn.cudnnPoolingForward(None, None, None, None, None, None, None, None),
      dnn.cudnnPoolingForward(None, None, None, None, None, None, None, None))
PY
# Under a sanitizer the instrumented library needs its runtime loaded first
# (the part of $LIBGPULEAK before libgpuleak.so); python3 itself leaks by design.
san_rt=; [ -n "$GL_SAN" ] && san_rt=${LIBGPULEAK%:*}
py() { LD_PRELOAD=$san_rt ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 python3 "$@"; }
expect_eq "$(py stub.py "$FAKECUDA/libcudnn.so.9" 2>&1)" "0 0" "a stub, quiet"
expect_eq "$(FAKECUDNN_TRACE=1 py stub.py "$FAKECUDA/libcudnn.so.9" 2>&1)" \
    "fakecudnn: cudnnPoolingForward (stub)
0 0" "a stub, traced once"

# The lists are what this toolkit's cuDNN exports (gen-exports.sh).
skip_if '[ ! -e "$CUDA_HOME/lib64/libcudnn.so.9" ]' "NVIDIA's libcudnn.so.9 not in $CUDA_HOME/lib64"
for so in $sonames; do
    "$ROOT/tools/fakecuda/cudnn/gen-exports.sh" "$CUDA_HOME/lib64/$so" >"$so.real"
    diff -u "$LISTS/$so.txt" "$so.real" >"$so.ldiff" || fail "$so.txt is not the toolkit's list: $(head -5 "$so.ldiff")"
    nm -D --defined-only --with-symbol-versions "$CUDA_HOME/lib64/$so" |
        awk '$2 == "T" && $3 !~ /^_Z/ { print $3 }' | LC_ALL=C sort >"$so.realv"
    cmp -s "$so.realv" "$so.fake" || fail "$so: versions differ from NVIDIA's: $(diff "$so.realv" "$so.fake" | head -3)"
done
