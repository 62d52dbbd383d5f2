# Both programs' layers only point down (interpose/LAYERS, report/LAYERS and
# their README.md): no object uses a symbol defined in a higher layer, and
# every function is declared in the header beside the file that defines it
# (scripts/layer-check.py), and no files of one layer call each other in a
# cycle, unless LAYERS declares a pair one module.  Only the objects of today's sources are checked:
# a build tree may still hold objects of files since moved or removed.  Then
# the check is shown to fail on a planted object in base/ that calls a hook,
# on a prototype written outside its header, on a planted 3-cycle and a
# planted pair in base/ (one line each), and to pass the pair once LAYERS
# declares it one module.
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
    grep -q "no upward reference, no call cycle, every prototype in its header" $prog.txt || fail "$prog: $(cat $prog.txt)"
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
# A call cycle of three files and a pair, inside base/, planted among a copy
# of base/'s objects alone (the layers above add nothing to a cycle in it,
# and each object is one nm more).
mkdir objs.cycle && cp -r objs.interpose/base objs.cycle/ && rm objs.cycle/base/planted.o
plant() {  # plant NAME CALLEE: base/NAME.o defines NAME() calling CALLEE()
    printf 'extern int %s(void);\nint %s(void);\nint %s(void) { return %s(); }\n' "$2" "$1" "$1" "$2" >"$1.c"
    ${CC:-cc} -c "$1.c" -o "objs.cycle/base/$1.o" || fail "compile $1.c"
}
plant cyc_a cyc_b; plant cyc_b cyc_c; plant cyc_c cyc_a
plant pair_x pair_y; plant pair_y pair_x
if check "$ROOT/interpose" objs.cycle >bad3.txt 2>&1; then fail "a 3-cycle and a pair passed: $(cat bad3.txt)"; fi
expect_eq "$(grep -c '^call ' bad3.txt)" 2 "one line per cycle: $(cat bad3.txt)"
grep -qx 'call cycle among 3 files (base/cyc_a.o base/cyc_b.o base/cyc_c.o): base/cyc_a.o (cyc_b) -> base/cyc_b.o (cyc_c) -> base/cyc_c.o (cyc_a) -> base/cyc_a.o' bad3.txt ||
    fail "the 3-cycle is not named: $(cat bad3.txt)"
grep -q '^call pair: base/pair_x.o (pair_y) -> base/pair_y.o (pair_x) -> base/pair_x.o ' bad3.txt ||
    fail "the pair is not named: $(cat bad3.txt)"
# Declared one module, the pair passes; the 3-cycle still fails.
cp -r "$ROOT/interpose" src.interpose
printf 'header base/pair_x.h: base/pair_x.c base/pair_y.c\n' >>src.interpose/LAYERS
if check src.interpose objs.cycle >bad4.txt 2>&1; then fail "the 3-cycle passed: $(cat bad4.txt)"; fi
expect_eq "$(grep -c '^call ' bad4.txt)" 1 "after the declaration: $(cat bad4.txt)"
grep -q '^call cycle among 3 files' bad4.txt || fail "the 3-cycle is not named: $(cat bad4.txt)"
true
