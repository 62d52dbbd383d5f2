#!/usr/bin/env bash
# Unit tests of the report's renderers (tests/unit/render_*.c): every row of
# the section registry renders its text and JSON of a snapshot built in
# memory, compared byte for byte with tests/unit/golden/NAME/ (for
# render_sections one KEY.golden per row, its text and JSON together); a
# named section without a text or JSON renderer, or without its golden
# file, fails, and so does a golden file that no row writes.
# After a deliberate change of the output:
#   GOLDEN_UPDATE=1 build/tests/unit/render_sections tests/unit/golden/render_sections
# and read the diff before committing it.  Every render_*.c is run, none is
# listed (tests/unit/module.mk: the render_ prefix).
source "$ROOT/tests/lib.sh"
run_unit_family render 1 "$ROOT/tests/unit/golden"

# The golden check itself, on copies of render_sections' files: a row's
# file missing, one byte changed in its text or in its JSON, a format's
# part gone, a file no row writes (a renamed section's) each fail, naming
# the file or row (and the line of a difference).
golden_fails() { # WHAT EXPECTED-LINE: render_sections on ./g fails with that line
    local rc=0
    "$TPROG/unit/render_sections" g >/dev/null 2>err.txt || rc=$?
    expect_eq "$rc" 1 "$1: exit"
    grep -qF -- "$2" err.txt || fail "$1: no '$2' in: $(head -3 err.txt)"
}
fresh() { rm -rf g && cp -r "$ROOT/tests/unit/golden/render_sections" g; }
fresh && rm g/ledger.golden
golden_fails "a missing golden file" "ledger: no golden file"
fresh && sed -i '2s/^/x/' g/ledger.golden
golden_fails "a changed text" "ledger.golden differs from g/ledger.golden at line 2"
json_line=$(grep -n -m1 '^==== json ====$' g/ledger.golden | cut -d: -f1)
fresh && sed -i "$((json_line + 2))s/^/x/" g/ledger.golden
golden_fails "a changed JSON" "ledger.golden differs from g/ledger.golden at line $((json_line + 2))"
fresh && sed -i "$json_line,\$d" g/ledger.golden
golden_fails "the JSON part gone" "ledger.golden differs from g/ledger.golden at line $json_line"
fresh && printf '\n' >>g/ledger.golden
golden_fails "a newline added at the end" "ledger.golden differs"
fresh && cp g/ledger.golden g/ledgers.golden
golden_fails "an orphan golden file" "g/ledgers.golden: no row writes it"
fresh && cp g/ledger.golden g/ledger.txt
golden_fails "a golden file of the old layout" "g/ledger.txt: no row writes it"
echo ok
