#!/usr/bin/env bash
# Snapshots of one process share their symbol lookups (issue 45, item 9):
# a pc is looked up in its file's symbol table once for the whole series,
# not once per snapshot -- in a large library (libtorch_cpu.so) each lookup
# scans the whole table, and diff or --html of five PyTorch step snapshots
# spent most of their ~1.5 s of CPU doing it again for every snapshot.
# Counted with a preloaded counter of libdwfl's symbol-table reads
# (dwfl_module_addrinfo, dwfl_module_getsym_info: the index of a file's
# symbols is read once too): diff and --html of three snapshots cost the
# reads of one, and their output is byte for byte what the per-snapshot
# lookups with libdwfl alone (GPULEAK_REPORT_SYMBOL_CACHE=snapshot, make
# bench's baseline, the reporter before) give.
source "$ROOT/tests/lib.sh"
mkdir d && "$TPROG/snapgen" diffset d
series=(d/a.snap d/b.snap d/c.snap)
lookups() { # lookups OUT CMD...: runs CMD with its output in OUT, prints its lookups
    rm -f count
    COUNT_SYMLOOKUP=$PWD/count LD_PRELOAD=$TPROG/count_symlookup.so "${@:2}" >"$1" || fail "$* : exit $?"
    cat count
}
one=$(lookups one.json "$REPORT" --json d/c.snap)
[ "$one" -gt 0 ] || fail "no symbol lookups in one snapshot's report: the counter is not in the way"
expect_eq "$(lookups diff.txt "$REPORT" diff "${series[@]}")" "$one" "lookups of diff over 3 snapshots (those of one)"
expect_eq "$(lookups diff.json "$REPORT" diff --json "${series[@]}")" "$one" "lookups of diff --json over 3 snapshots"
expect_eq "$(lookups /dev/null "$REPORT" --html page.html "${series[@]}")" "$one" "lookups of --html of 3 snapshots"

# The baseline looks up per snapshot, and every output is the same bytes.
export GPULEAK_REPORT_SYMBOL_CACHE=snapshot
base=$(lookups /dev/null "$REPORT" --json d/c.snap)
expect_eq "$(lookups diff.base.txt "$REPORT" diff "${series[@]}")" $((3 * base)) "per-snapshot lookups (baseline)"
lookups diff.base.json "$REPORT" diff --json "${series[@]}" >/dev/null
lookups /dev/null "$REPORT" --html page.base.html "${series[@]}" >/dev/null
for f in diff.txt diff.json page.html; do
    cmp -s "$f" "${f%.*}.base.${f##*.}" || fail "$f differs from the per-snapshot lookups' output"
done
grep -q 'alloc_activations' diff.txt || fail "the diff names no function: nothing was symbolized"
echo ok
