#!/usr/bin/env bash
# The HTML report in a real browser: headless Chromium (Debian's chromium,
# installed by scripts/install-deps.sh), driven over the DevTools protocol by
# tests/browser/check_html.py.  The page must load with no console error and
# no network request, show the snapshot's numbers in its timeline, flame
# graphs and address map, zoom on a drag and on a click, sort on a click;
# then the same for several snapshots (growth; 300 of them: 32 columns), and for a snapshot with
# 1,000,000 history events, which must load and draw within the limit.
source "$ROOT/tests/lib.sh"
skip_if '! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null && [ -z "${CHROMIUM:-}" ]' \
    "chromium is not installed (scripts/install-deps.sh installs it)"
skip_under_san "Chromium under the sanitizer runtime is not what is tested here"
check=$ROOT/tests/browser/check_html.py
# page NAME WHAT SNAP [CHECK-ARG...]: SNAP's page NAME.html, its JSON
# NAME.json and its text NAME.txt, checked in the browser; WHAT is the
# failure's text.
page() {
    local name=$1 what=$2 snap=$3
    shift 3
    "$REPORT" --html "$name.html" "$snap"
    "$REPORT" --json "$snap" >"$name.json"
    "$REPORT" "$snap" >"$name.txt"
    python3 "$check" "$name.html" "$name.json" --text "$name.txt" "$@" || fail "$what"
}
# growth_page NAME WHAT SNAP...: the page of SNAPs, NAME.html, checked
# against the last one's JSON (NAME-end.json) and their diff (NAME.json).
growth_page() {
    local name=$1 what=$2
    shift 2
    "$REPORT" --html "$name.html" "$@"
    "$REPORT" --json "${@: -1}" >"$name-end.json"
    "$REPORT" --json diff "$@" >"$name.json"
    python3 "$check" "$name.html" "$name-end.json" --growth "$name.json" || fail "$what"
}

"$TPROG/snapgen" history h.snap
page h "history page" h.snap --screenshot h.png
[ -s h.png ] || fail "no screenshot"

"$TPROG/snapgen" diffset .
growth_page g "growth page" a.snap b.snap c.snap
# snapshots of one process taken at 1, 2 and 10 s: the growth chart's x
# axis is the time they were taken (by their numbers, a steady leak sampled
# at growing intervals would look like it speeds up)
snap_set c.snap c10.snap PROCESS 0 snapshot_mono_ns 10000000000
growth_page gt "growth page over time" a.snap b.snap c10.snap
expect_eq "$(jget gt.json 'd["snapshots"][2]["duration_ns"]')" 10000000000 "the patched snapshot's time"

"$TPROG/snapgen" leaks l.snap >/dev/null
page l "leaks page (no history)" l.snap

# other processes' memory mapped here (IPC): its card and table
"$TPROG/snapgen" ipc i.snap
page i "mapped page" i.snap

# frees of pointers with no live allocation: their table
"$TPROG/snapgen" badfree b.snap
page b "invalid frees page" b.snap
# frees of addresses inside blocks (live and freed): the opened row names
# the block and where it was allocated
"$TPROG/snapgen" badinside bi.snap
page bi "frees inside blocks page" bi.snap

# a real double free, its stacks recorded: the opened row says where the
# address was allocated and first freed
mkdir bf && (cd bf && GPULEAK_FREE_STACKS=1 traced "$TPROG/bad_free" >/dev/null) || fail "bad_free run"
page bf "double free page" bf/gpuleak.*.snap

# memory a context teardown released: its table
mkdir td && (cd td && traced "$TPROG/driver_lifecycle" ctx) || fail "driver_lifecycle run"
page td "teardown page" td/gpuleak.*.snap

# growth between two snapshots of one run: the teardown leak and the
# invalid frees that happened in between have their tables
mkdir tg && (cd tg && GPULEAK_OUTPUT=end.snap traced "$TPROG/driver_lifecycle" ctx mid.snap) || fail "mid-run teardown"
growth_page tg "teardown growth page" tg/mid.snap tg/end.snap
mkdir fg && (cd fg && GPULEAK_OUTPUT=end.snap traced "$TPROG/bad_free" mid.snap >/dev/null) || fail "mid-run frees"
growth_page fg "invalid frees growth page" fg/mid.snap fg/end.snap

# allocations that failed for lack of memory: their table
FAKECUDA_MEM_BYTES=67108864 GPULEAK_OOM_SNAPSHOT=0 GPULEAK_OUTPUT=oom.snap traced "$TPROG/scenarios" oom-kinds >/dev/null ||
    fail "oom-kinds run"
page oom "out of memory page" oom.snap

# the ledger of used memory: a card and a table per device
FAKECUDA_OTHER_USED=3145728 FAKECUDA_OTHER_USED_LATER=7340032 GPULEAK_OUTPUT=ledger.snap traced "$TPROG/ledger" ||
    fail "ledger run"
page ledger "ledger page" ledger.snap
expect_eq "$(jget ledger.json 'len(d["ledger"])')" 2 "ledger devices"

# a live run: the tables of allocation calls, temporary allocations and
# allocation lifetimes
mkdir live && (cd live && traced "$TPROG/churn" 1 100 >/dev/null) || fail "churn run"
page c "allocation calls page" live/gpuleak.*.snap
expect_eq "$(jget c.json '(d["temporary_allocations"]["temporary"], d["allocation_lifetimes"]["freed"]["count"])')" \
    "(100, 100)" "the churn page's temporary allocations and lives"
# sampled (GPULEAK_MODE=light): the allocation calls' est. columns, "not
# sampled" for the calls of no stack
mkdir light && (cd light && GPULEAK_MODE=light GPULEAK_SAMPLE_BYTES=1K GPULEAK_SAMPLE_SEED=1 \
    traced "$TPROG/churn" 2 100 >/dev/null) || fail "churn run, light"
page lc "sampled allocation calls page" light/gpuleak.*.snap
expect_eq "$(jget lc.json '[s["frames"] == [] for s in d["allocation_calls"]["sites"]].count(True)')" 1 \
    "the light page's unsampled calls"
# lives of every class set (as t_report_lifetimes.sh): pairs living 5 us,
# 50 ms and 20 s, the leak an hour old, and a free of an allocation made
# before the history (its allocation out of it): the table and its note
mkdir lt && (cd lt && traced "$TPROG/churn" 1 3 >/dev/null) || fail "churn run, 3 pairs"
lifetimes_snapshots lt/gpuleak.*.snap
page lt "allocation lifetimes page" older.snap
expect_eq "$(jget lt.json '[(c["min_ns"], c["count"]) for c in d["allocation_lifetimes"]["freed"]["classes"]]')" \
    "[[10000000, 1], [10000000000, 1]]" "the lifetimes page's freed classes"

# growth over 300 snapshots: 32 columns (the first, the last, evenly spaced
# between), said so on the page, and it loads within the limit
mkdir series && "$TPROG/snapgen" series series 300 3 2
"$REPORT" --html series.html series/*.snap
"$REPORT" --json series/s00299.snap > series-last.json
"$REPORT" --json --top 200 diff series/*.snap > series-diff.json
python3 "$check" series.html series-last.json --growth series-diff.json --max-load-s "${HTML_MAX_LOAD_S:-8}" ||
    fail "growth page of 300 snapshots"

# 1,000,000 events (and 100,000 live allocations on 4 devices)
"$TPROG/snapgen" bench big.snap 100000 2000 1000000
"$REPORT" --html big.html big.snap
"$REPORT" --json big.snap > big.json
size=$(stat -c %s big.html)
[ "$size" -lt $((4 << 20)) ] || fail "page for 1M events is $size bytes"
python3 "$check" big.html big.json --max-load-s "${HTML_MAX_LOAD_S:-8}" || fail "1M-event page"
echo ok
