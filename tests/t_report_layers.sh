# The reporter's layers point down (report/LAYERS, report/README.md): no
# object uses a symbol defined in a higher layer, and every function is
# declared in the header beside the file that defines it
# (scripts/layer-check.py).  Only the objects of today's sources are checked:
# a build tree may still hold objects of files since moved or removed.
source "$ROOT/tests/lib.sh"
mkdir -p objs
(cd "$ROOT/report" && find . -name '*.c') | while read -r c; do
    o=${c%.c}.o
    [ -f "$BUILD/obj/report/$o" ] || fail "no object for report/$c (build first)"
    mkdir -p "objs/$(dirname "$o")"
    cp "$BUILD/obj/report/$o" "objs/$o"
done || exit 1
python3 "$ROOT/scripts/layer-check.py" "$ROOT/report" objs >out.txt 2>&1 || { cat out.txt; fail "layer check"; }
grep -q "no upward reference, every prototype in its header" out.txt || fail "checker said: $(cat out.txt)"
