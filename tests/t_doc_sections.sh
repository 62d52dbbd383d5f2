#!/usr/bin/env bash
# The report's section names are written out in four places besides the
# registry (report/render/sections.c, which --help prints): the man page,
# docs/reporter.md's option table, and the launcher's bash completion.
# Each must list exactly --help's names, in its order, once (issue 47: the
# man page and docs/reporter.md had gone stale).  scripts/sections-doc.py
# writes them from --help.  Then a stale copy of each is shown to fail, and
# to be mended by that script.
source "$ROOT/tests/lib.sh"
MAN=$ROOT/tools/man/gpuleak-report.1 MD=$ROOT/docs/reporter.md COMP=$ROOT/tools/gpuleak.bash-completion
help_names=$("$REPORT" --help | grep -A1 -- '--sections LIST' | tail -1 | tr -d ' ' | tr ',' ' ')
[ "$(wc -w <<<"$help_names")" -ge 7 ] || fail "--help's section list: '$help_names'"

# The man page: the paragraph after `\fB\-\-sections\fR`, up to its
# "(default all)", names them comma-separated (an aside in parentheses is
# not a name).
man_names() {
    awk '/^\\fB\\-\\-sections\\fR/ { on = 1; next } on && /^\.TP/ { exit } on { print }' "$1" |
        tr '\n' ' ' | sed 's/^comma-separated: *//; s/ *(default all)\..*//; s/([^)]*)//g' |
        tr -d ' ' | tr ',' ' '
}
# docs/reporter.md: the `--sections LIST` row, the code span after the option.
md_names() {
    grep -- '^| `--sections LIST` |' "$1" | sed 's/^| `--sections LIST` | `\([^`]*\)`.*/\1/' | tr ',' ' ' | tr '\n' ' ' |
        sed 's/ $//'
}
# The completion: what it offers after --sections, without "all".
comp_names() {
    bash -c 'source "$1"; COMP_WORDS=(gpuleak check --sections ""); COMP_CWORD=3; _gpuleak; echo "${COMPREPLY[*]}"' _ \
        "$1" | sed 's/ all$//'
}
check_lists() { # MAN MD COMP: one line per place that differs
    [ "$(man_names "$1")" = "$help_names" ] || echo "man page: '$(man_names "$1")'"
    [ "$(grep -c -- '^| `--sections LIST` |' "$2")" = 1 ] || echo "docs/reporter.md: $(grep -c -- '^| `--sections LIST` |' "$2") rows"
    [ "$(md_names "$2")" = "$help_names" ] || echo "docs/reporter.md: '$(md_names "$2")'"
    [ "$(comp_names "$3")" = "$help_names" ] || echo "completion: '$(comp_names "$3")'"
}
expect_eq "$(check_lists "$MAN" "$MD" "$COMP")" "" \
    "the section lists against --help ($help_names; scripts/sections-doc.py rewrites them)"

# A section added to the registry and to none of the copies: each place
# is named (as if --help had gained "newsection" after ledger).
expect_eq "$(help_names="$help_names newsection" check_lists "$MAN" "$MD" "$COMP" | sed 's/:.*//' | tr '\n' ' ')" \
    "man page docs/reporter.md completion " "a name --help gained"

# Each place gone stale is named: a section missing from the man page, a
# second (old) row in the docs, a renamed one in the completion.
sed '/^\\fB\\-\\-sections\\fR/,/^\.TP/ s/ peak,//' "$MAN" >stale.1
{ cat "$MD"; echo '| `--sections LIST` | `leaks,peak` |'; } >stale.md
sed '/--sections)/ s/fragmentation/frag/' "$COMP" >stale.bash
expect_eq "$(check_lists stale.1 stale.md stale.bash | sed 's/:.*//' | uniq | tr '\n' ' ')" \
    "man page docs/reporter.md completion " "stale copies"
# The script mends each but the second row, which a person removes.
python3 "$ROOT/scripts/sections-doc.py" --report "$REPORT" --man stale.1 --md stale.md --completion stale.bash \
    2>/dev/null || fail "sections-doc.py"
expect_eq "$(check_lists stale.1 stale.md stale.bash | sed 's/:.*//' | uniq | tr '\n' ' ')" "docs/reporter.md " \
    "stale copies mended"
python3 "$ROOT/scripts/sections-doc.py" --report "$REPORT" --check --man stale.1 --md stale.md \
    --completion stale.bash >/dev/null 2>&1 || fail "sections-doc.py --check after mending"
echo ok
