# fakecuda's cuDNN 9 stand-ins (issue 44; the exports of libcudnn.so.9 and
# its sub-libraries, cudnn/exports/SONAME.txt, are checked with every
# stand-in's by t_fakecuda_exports.sh): the backend API
# answers the frontend's sequence (tests/fakecuda/fc_cudnn_test.c); a stub
# returns success, saying so only under FAKECUDNN_TRACE=1.
source "$ROOT/tests/lib.sh"

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

