#!/usr/bin/env bash
# Unit tests of the report's renderers (tests/unit/render_*.c): every row of
# the section registry renders its text and JSON of a snapshot built in
# memory, compared byte for byte with tests/unit/golden/NAME/; a named
# section without a text or JSON renderer, or without golden files, fails.
# After a deliberate change of the output:
#   GOLDEN_UPDATE=1 build/tests/unit/render_sections tests/unit/golden/render_sections
# and read the diff before committing it.  Every render_*.c is run, none is
# listed (tests/unit/module.mk: the render_ prefix).
source "$ROOT/tests/lib.sh"
n=0
for src in "$ROOT"/tests/unit/render_*.c; do
    t=$(basename "$src" .c)
    [ -x "$TPROG/unit/$t" ] || fail "$t was not built from $src"
    "$TPROG/unit/$t" "$ROOT/tests/unit/golden/$t" || fail "$t"
    n=$((n + 1))
done
[ "$n" -ge 1 ] || fail "no render unit tests"
echo ok
