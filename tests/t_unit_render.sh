#!/usr/bin/env bash
# Unit tests of the report's renderers (tests/unit/render_*.c): every row of
# the section registry renders its text and JSON of a snapshot built in
# memory, compared byte for byte with tests/unit/golden/NAME/; a named
# section without a text or JSON renderer, or without golden files, fails,
# and so does a golden file that no row writes.
# After a deliberate change of the output:
#   GOLDEN_UPDATE=1 build/tests/unit/render_sections tests/unit/golden/render_sections
# and read the diff before committing it.  Every render_*.c is run, none is
# listed (tests/unit/module.mk: the render_ prefix).
source "$ROOT/tests/lib.sh"
run_unit_programs render 1 "$ROOT/tests/unit/golden"

# The golden check itself, on copies of render_sections' files: a row's
# file missing, one byte changed, a file no row writes (a renamed
# section's) each fail, naming the file or row.
golden_fails() { # WHAT EXPECTED-LINE: render_sections on ./g fails with that line
    local rc=0
    "$TPROG/unit/render_sections" g >/dev/null 2>err.txt || rc=$?
    expect_eq "$rc" 1 "$1: exit"
    grep -qF -- "$2" err.txt || fail "$1: no '$2' in: $(head -3 err.txt)"
}
fresh() { rm -rf g && cp -r "$ROOT/tests/unit/golden/render_sections" g; }
fresh && rm g/ledger.json
golden_fails "a missing golden file" "ledger: no golden file"
fresh && sed -i '1s/^/x/' g/ledger.txt
golden_fails "a changed golden file" "ledger.txt differs from g/ledger.txt"
fresh && cp g/ledger.txt g/ledgers.txt
golden_fails "an orphan golden file" "g/ledgers.txt: no row writes it"
echo ok
