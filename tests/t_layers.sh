# Both programs' layers only point down (interpose/LAYERS, report/LAYERS and
# their README.md): no object uses a symbol defined in a higher layer, and
# every function is declared in the header beside the file that defines it
# (scripts/layer-check.py).  Only the objects of today's sources are checked:
# a build tree may still hold objects of files since moved or removed.  Then
# the check is shown to fail on a planted object in base/ that calls a hook,
# and on a prototype written outside its header.
source "$ROOT/tests/lib.sh"
# Layers are a property of the sources, which every phase compiles alike.
skip_under_san "the layers are the sources'; checked on the plain build's objects"
current_objects() {  # current_objects PROGRAM DEST: copy the objects of PROGRAM's sources
    (cd "$ROOT/$1" && find . -name '*.c' -o -name '*.S') | while read -r src; do
        o=${src%.*}.o
        [ -f "$BUILD/obj/$1/$o" ] || fail "no object for $1/$src (build first)"
        mkdir -p "$2/$(dirname "$o")"
        cp "$BUILD/obj/$1/$o" "$2/$o"
    done
}
check() { python3 "$ROOT/scripts/layer-check.py" "$1" "$2"; }
for prog in interpose report; do
    current_objects $prog objs.$prog || exit 1
    check "$ROOT/$prog" objs.$prog >$prog.txt 2>&1 || fail "$prog: $(cat $prog.txt)"
    grep -q "no upward reference, every prototype in its header" $prog.txt || fail "$prog: $(cat $prog.txt)"
done

# An upward reference: base/ calling a hook.
printf 'extern int gl_hook_cudaMalloc(void);\nint planted(void);\nint planted(void) { return gl_hook_cudaMalloc(); }\n' >planted.c
${CC:-cc} -c planted.c -o objs.interpose/base/planted.o || fail "compile planted.c"
if check "$ROOT/interpose" objs.interpose >bad.txt 2>&1; then fail "an upward reference passed: $(cat bad.txt)"; fi
grep -q "^base/planted.o (base) uses gl_hook_cudaMalloc, defined in hooks/" bad.txt ||
    fail "the upward reference is not named: $(cat bad.txt)"

# A prototype outside its header, in a copy of the reporter's sources.
cp -r "$ROOT/report" src.report
printf 'const char *reason_name(unsigned reason);\n' >>src.report/cli/main.c
if check src.report objs.report >bad2.txt 2>&1; then fail "a stray prototype passed: $(cat bad2.txt)"; fi
grep -q "^src.report/cli/main.c:[0-9]*: prototype of reason_name, defined in model/reason.c: it belongs in model/reason.h" bad2.txt ||
    fail "the stray prototype is not named: $(cat bad2.txt)"
true
