#!/usr/bin/env bash
# The report's section names, wherever a user reads them, are --help's (the
# registry, report/render/sections.h), in its order, once (issue 47: the
# man page and docs/reporter.md had gone stale).  Three places, none a
# hand-kept copy: the man page as built (tools/module.mk fills the
# template's @SECTIONS@ from `gpuleak-report --list-sections`), the bash
# completion (it asks `gpuleak report --list-sections` as it completes) and
# docs/reporter.md's option row (scripts/sections-doc.py writes it from
# --help).  Then each place gone stale is shown to fail.
source "$ROOT/tests/lib.sh"
TEMPLATE=$ROOT/tools/man/gpuleak-report.1 MAN=$BUILD/share/man/man1/gpuleak-report.1
MD=$ROOT/docs/reporter.md COMP=$ROOT/tools/gpuleak.bash-completion
help_names=$("$REPORT" --help | grep -A1 -- '--sections LIST' | tail -1 | tr -d ' ' | tr ',' ' ')
[ "$(wc -w <<<"$help_names")" -ge 8 ] || fail "--help's section list: '$help_names'"
expect_eq "$("$REPORT" --list-sections | paste -sd' ')" "$help_names" "--list-sections"

# The man page: the paragraph after `\fB\-\-sections\fR`, up to its
# "(default all", names them comma-separated.
man_names() {
    awk '/^\\fB\\-\\-sections\\fR/ { on = 1; next } on && /^\.TP/ { exit } on { print }' "$1" |
        tr '\n' ' ' | sed 's/^comma-separated: *//; s/ *(default all.*//' | tr -d ' ' | tr ',' ' '
}
# docs/reporter.md: the `--sections LIST` row, the code span after the option.
md_names() {
    grep -- '^| `--sections LIST` |' "$1" | sed 's/^| `--sections LIST` | `\([^`]*\)`.*/\1/' | tr ',' ' ' | tr '\n' ' ' |
        sed 's/ $//'
}
# The completion: what it offers after --sections, without "all", for the
# command line of launcher $2 (ours, so it asks the reporter just built).
comp_names() { # COMPLETION LAUNCHER
    bash -c 'source "$1"; COMP_WORDS=("$2" check --sections ""); COMP_CWORD=3; _gpuleak; echo "${COMPREPLY[*]}"' _ \
        "$1" "$2" | sed 's/ *all$//'
}
check_lists() { # MAN MD COMP LAUNCHER: one line per place that differs
    [ "$(man_names "$1")" = "$help_names" ] || echo "man page: '$(man_names "$1")'"
    [ "$(grep -c -- '^| `--sections LIST` |' "$2")" = 1 ] || echo "docs/reporter.md: $(grep -c -- '^| `--sections LIST` |' "$2") rows"
    [ "$(md_names "$2")" = "$help_names" ] || echo "docs/reporter.md: '$(md_names "$2")'"
    [ "$(comp_names "$3" "$4")" = "$help_names" ] || echo "completion: '$(comp_names "$3" "$4")'"
}
expect_eq "$(check_lists "$MAN" "$MD" "$COMP" "$LAUNCHER")" "" \
    "the section lists against --help ($help_names; scripts/sections-doc.py rewrites docs/reporter.md's)"

# The sources hold no list to go stale: the template's paragraph is the
# placeholder, the completion's --sections case names no section.
expect_eq "$(awk '/^\\fB\\-\\-sections\\fR/ { getline; print; exit }' "$TEMPLATE" | cut -d' ' -f1-2)" \
    "comma-separated: @SECTIONS@" "the man page template's --sections paragraph"
comp_line=$(grep -- ' --sections)' "$COMP")
for name in $help_names; do
    ! grep -qw -- "$name" <<<"$comp_line" || fail "the completion names section '$name': it is to ask --list-sections"
done

# A section added to the registry and to none of the places: each is named
# (as if --help had gained "newsection").
expect_eq "$(help_names="$help_names newsection" check_lists "$MAN" "$MD" "$COMP" "$LAUNCHER" | sed 's/:.*//' | tr '\n' ' ')" \
    "man page docs/reporter.md completion " "a name --help gained"

# Each place gone stale is named: a man page missing a section, a second
# (old) row in the docs, a completion with a written list, and one asking a
# reporter whose --list-sections lost a name.
sed '/^\\fB\\-\\-sections\\fR/,/^\.TP/ s/ peak,//' "$MAN" >stale.1
{ cat "$MD"; echo '| `--sections LIST` | `leaks,peak` |'; } >stale.md
sed 's/"$(_gpuleak_sections) all"/"leaks peak all"/' "$COMP" >stale.bash
mkdir -p old/bin && printf '#!/bin/sh\n[ "$2" = --list-sections ] && printf "leaks\\npeak\\n"\n' >old/bin/gpuleak
chmod +x old/bin/gpuleak
expect_eq "$(check_lists stale.1 stale.md stale.bash "$LAUNCHER" | sed 's/:.*//' | uniq | tr '\n' ' ')" \
    "man page docs/reporter.md completion " "stale copies"
expect_eq "$(check_lists "$MAN" "$MD" "$COMP" old/bin/gpuleak)" "completion: 'leaks peak'" "an old reporter"
# The script mends the docs' row but not a second one, which a person removes.
cp "$MD" one.md && sed -i 's/^\(| `--sections LIST` | `\)[^`]*`/\1leaks`/' one.md
expect_eq "$(md_names one.md)" "leaks" "a stale docs row"
python3 "$ROOT/scripts/sections-doc.py" --report "$REPORT" --check --md one.md >/dev/null 2>&1 &&
    fail "sections-doc.py --check passed a stale row"
python3 "$ROOT/scripts/sections-doc.py" --report "$REPORT" --md one.md 2>/dev/null || fail "sections-doc.py"
expect_eq "$(check_lists "$MAN" one.md "$COMP" "$LAUNCHER")" "" "the docs row mended"
python3 "$ROOT/scripts/sections-doc.py" --report "$REPORT" --md stale.md 2>/dev/null || fail "sections-doc.py on two rows"
expect_eq "$(check_lists "$MAN" stale.md "$COMP" "$LAUNCHER" | sed 's/:.*//' | uniq)" "docs/reporter.md" "two rows left"
python3 "$ROOT/scripts/sections-doc.py" --report "$REPORT" --check >/dev/null 2>&1 ||
    fail "sections-doc.py --check on docs/reporter.md"
echo ok
