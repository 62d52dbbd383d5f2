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

"$TPROG/snapgen" history h.snap
"$REPORT" --html h.html h.snap
"$REPORT" --json h.snap > h.json
python3 "$check" h.html h.json --screenshot h.png || fail "history page"
[ -s h.png ] || fail "no screenshot"

"$TPROG/snapgen" diffset .
"$REPORT" --html g.html a.snap b.snap c.snap
"$REPORT" --json c.snap > c.json
"$REPORT" --json diff a.snap b.snap c.snap > d.json
python3 "$check" g.html c.json --growth d.json || fail "growth page"
# snapshots of one process taken at 1, 2 and 10 s: the growth chart's x
# axis is the time they were taken (by their numbers, a steady leak sampled
# at growing intervals would look like it speeds up)
snap_set c.snap c10.snap PROCESS 0 snapshot_mono_ns 10000000000
"$REPORT" --html gt.html a.snap b.snap c10.snap
"$REPORT" --json c10.snap > c10.json
"$REPORT" --json diff a.snap b.snap c10.snap > dt.json
expect_eq "$(jget dt.json 'd["snapshots"][2]["duration_ns"]')" 10000000000 "the patched snapshot's time"
python3 "$check" gt.html c10.json --growth dt.json || fail "growth page over time"

"$TPROG/snapgen" leaks l.snap >/dev/null
"$REPORT" --html l.html l.snap
"$REPORT" --json l.snap > l.json
python3 "$check" l.html l.json || fail "leaks page (no history)"

# other processes' memory mapped here (IPC): its card and table
"$TPROG/snapgen" ipc i.snap
"$REPORT" --html i.html i.snap
"$REPORT" --json i.snap > i.json
python3 "$check" i.html i.json || fail "mapped page"

# frees of pointers with no live allocation: their table
"$TPROG/snapgen" badfree b.snap
"$REPORT" --html b.html b.snap
"$REPORT" --json b.snap > b.json
python3 "$check" b.html b.json || fail "invalid frees page"
# frees of addresses inside blocks (live and freed): the opened row names
# the block and where it was allocated
"$TPROG/snapgen" badinside bi.snap
"$REPORT" --html bi.html bi.snap
"$REPORT" --json bi.snap > bi.json
python3 "$check" bi.html bi.json || fail "frees inside blocks page"

# a real double free, its stacks recorded: the opened row says where the
# address was allocated and first freed
mkdir bf && (cd bf && GPULEAK_FREE_STACKS=1 traced "$TPROG/bad_free" >/dev/null) || fail "bad_free run"
"$REPORT" --html bf.html bf/gpuleak.*.snap
"$REPORT" --json bf/gpuleak.*.snap > bf.json
python3 "$check" bf.html bf.json || fail "double free page"

# memory a context teardown released: its table
mkdir td && (cd td && traced "$TPROG/driver_lifecycle" ctx) || fail "driver_lifecycle run"
"$REPORT" --html td.html td/gpuleak.*.snap
"$REPORT" --json td/gpuleak.*.snap > td.json
python3 "$check" td.html td.json || fail "teardown page"

# growth between two snapshots of one run: the teardown leak and the
# invalid frees that happened in between have their tables
mkdir tg && (cd tg && GPULEAK_OUTPUT=end.snap traced "$TPROG/driver_lifecycle" ctx mid.snap) || fail "mid-run teardown"
"$REPORT" --html tg.html tg/mid.snap tg/end.snap
"$REPORT" --json tg/end.snap > tg-end.json
"$REPORT" --json diff tg/mid.snap tg/end.snap > tg.json
python3 "$check" tg.html tg-end.json --growth tg.json || fail "teardown growth page"
mkdir fg && (cd fg && GPULEAK_OUTPUT=end.snap traced "$TPROG/bad_free" mid.snap >/dev/null) || fail "mid-run frees"
"$REPORT" --html fg.html fg/mid.snap fg/end.snap
"$REPORT" --json fg/end.snap > fg-end.json
"$REPORT" --json diff fg/mid.snap fg/end.snap > fg.json
python3 "$check" fg.html fg-end.json --growth fg.json || fail "invalid frees growth page"

# allocations that failed for lack of memory: their table
FAKECUDA_MEM_BYTES=67108864 GPULEAK_OOM_SNAPSHOT=0 GPULEAK_OUTPUT=oom.snap traced "$TPROG/scenarios" oom-kinds >/dev/null ||
    fail "oom-kinds run"
"$REPORT" --html oom.html oom.snap
"$REPORT" --json oom.snap > oom.json
python3 "$check" oom.html oom.json || fail "out of memory page"

# the ledger of used memory: a card and a table per device
FAKECUDA_OTHER_USED=3145728 FAKECUDA_OTHER_USED_LATER=7340032 GPULEAK_OUTPUT=ledger.snap traced "$TPROG/ledger" ||
    fail "ledger run"
"$REPORT" --html ledger.html ledger.snap
"$REPORT" --json ledger.snap > ledger.json
expect_eq "$(jget ledger.json 'len(d["ledger"])')" 2 "ledger devices"
python3 "$check" ledger.html ledger.json || fail "ledger page"

# a live run: the allocation calls table
mkdir live && (cd live && traced "$TPROG/churn" 2 100 >/dev/null) || fail "churn run"
"$REPORT" --html c.html live/gpuleak.*.snap
"$REPORT" --json live/gpuleak.*.snap > c.json
python3 "$check" c.html c.json || fail "allocation calls page"

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
