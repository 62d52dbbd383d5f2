#!/usr/bin/env bash
# --sections comes from one registry (report/render/sections.c): the names
# --help lists, the one-line error for a bad name (exit 2), and every listed
# name accepted by the text, JSON and HTML outputs.  torch, the PYTORCH'S
# CACHE view, is a section of its own (issue 35: "--sections torch is
# refused"), and still shows with leaks.
source "$ROOT/tests/lib.sh"
"$TPROG/snapgen" leaks l.snap > /dev/null
"$TPROG/snapgen" torchview t.snap ok > /dev/null

# --help's list: the first sections' names in their order, and whatever
# sections of their own files (report/sections/) add between them, which
# this test then takes from it.
expect_eq "$("$REPORT" --help | grep -A1 -- '--sections LIST' | head -1)" \
"  --sections LIST       comma-separated (default: all):" "--help's section list head"
names=$("$REPORT" --help | grep -A1 -- '--sections LIST' | tail -1)
expect_eq "${names%%[! ]*}" "                        " "--help's section list indent"
names=${names##* }
expect_eq "$(tr ',' '\n' <<<"$names" | grep -xE 'leaks|torch|calls|peak|timeline|fragmentation|ledger' | paste -sd,)" \
    leaks,torch,calls,peak,timeline,fragmentation,ledger "--help's first sections"

rc=0; "$REPORT" --sections bogus l.snap > out.txt 2> err.txt || rc=$?
expect_eq "$rc" 2 "--sections bogus: exit"
expect_eq "$(cat err.txt)" "gpuleak-report: --sections takes $names, not 'bogus' (try --help)" "--sections bogus: error"
[ ! -s out.txt ] || fail "--sections bogus: stdout not empty"

for name in ${names//,/ } frag all leaks,torch; do
    "$REPORT" --sections "$name" l.snap > /dev/null 2> err.txt || fail "text --sections $name: $(cat err.txt)"
    "$REPORT" --json --sections "$name" l.snap > o.json 2> err.txt || fail "json --sections $name: $(cat err.txt)"
    jget o.json 'd["format"]' > /dev/null || fail "json --sections $name: not JSON"
    "$REPORT" --html o.html --sections "$name" l.snap 2> err.txt || fail "html --sections $name: $(cat err.txt)"
done

# torch alone: PyTorch's view and the headline, nothing of the other sections
"$REPORT" --sections torch t.snap > t.txt
expect_eq "$(grep -E '^[A-Z][A-Z '\'']+$' t.txt | tr '\n' '|')" "SUMMARY|PYTORCH'S CACHE|" "torch alone: titles"
expect_eq "$(jget <("$REPORT" --json --sections torch t.snap) '"torch" in d and "leaks" not in d')" "True" "torch alone: JSON members"
# leaks still shows it, in its place, and the default report is all of them
"$REPORT" --sections leaks t.snap | grep -q "^PYTORCH'S CACHE$" || fail "leaks lost PyTorch's view"
cmp <("$REPORT" t.snap) <("$REPORT" --sections "$names" t.snap) ||
    fail "the default is not every section"
# the man page, docs/reporter.md and the bash completion: t_doc_sections
