# libgpuleak.so's layers only point down (interpose/LAYERS, interpose/README.md):
# scripts/layer-check.py on this build's objects.  Then the check is shown to
# fail on a planted object in base/ that calls a hook.
source "$ROOT/tests/lib.sh"
check() { python3 "$ROOT/scripts/layer-check.py" "$ROOT/interpose" "$1"; }
check "$BUILD/obj/interpose" >out.txt 2>&1 || fail "layer check: $(cat out.txt)"

mkdir -p objs
cp -r "$BUILD/obj/interpose/." objs/
printf 'extern int gl_hook_cudaMalloc(void);\nint planted(void);\nint planted(void) { return gl_hook_cudaMalloc(); }\n' >planted.c
${CC:-cc} -c planted.c -o objs/base/planted.o || fail "compile planted.c"
if check objs >bad.txt 2>&1; then fail "an upward reference passed: $(cat bad.txt)"; fi
grep -q "gl_hook_cudaMalloc" bad.txt || fail "the upward reference is not named: $(cat bad.txt)"
