# Issue 45, item 8: diff gives each growing line (suspected leak) a rate in
# bytes per hour: its growth over the time between the first and the last
# snapshot, as the snapshots' PROCESS records stamp it (snapshot_mono_ns,
# one clock per process), rounded down.
#  - snapgen series: 3 snapshots of one process taken 1, 2 and 3 s after
#    start, two stacks growing by 256 bytes a snapshot: +512 bytes over
#    2 s = 921,600 bytes an hour exactly, in the text ("+900.0 KiB/hour"
#    under each suspect, the time said once under the head), in JSON
#    (rate_elapsed_ns, bytes_per_hour) and in the HTML page's data;
#  - snapgen rankseries under diff --across-runs: 3 processes, no common
#    clock: no rate anywhere, said once (text and JSON);
#  - end to end: tests/programs/scenarios.c "periodic" under fakecuda with
#    GPULEAK_INTERVAL leaks 1 MiB after each periodic snapshot it sees; the
#    diff of its periodic snapshots gives the leaking line the rate that
#    the snapshots' own recorded times and bytes make, to the byte: the
#    tolerance is 0, since the expected rate is computed from the times
#    the snapshots record, not from the interval asked for.
source "$ROOT/tests/lib.sh"

# ---- one process, times controlled: the exact rate ----
mkdir one
"$TPROG/snapgen" series one 3 2 1
"$REPORT" diff one/s0000{0,1,2}.snap >one.txt || fail "diff: exit $?"
expect_eq "$(grep -c '^growth per hour' one.txt)" 1 "one process: the clock said once"
grep -qx 'growth per hour: over the 2.00 s from the first snapshot to the last' one.txt ||
    fail "one process: the clock line: $(grep '^growth per hour' one.txt)"
expect_eq "$(sed -n '/^CHANGES BY STACK$/,/^ALLOCATED AFTER/p' one.txt | grep -c '^+512 bytes: .*suspected leak (monotonic growth)$')" 2 \
    "one process: two suspects"
expect_eq "$(sed -n '/^CHANGES BY STACK$/,/^ALLOCATED AFTER/p' one.txt | grep -A3 '^+512 bytes' | grep -c '^    rate:        +900.0 KiB/hour$')" 2 \
    "one process: each suspect's rate, under its allocations"
"$REPORT" --json diff one/s0000{0,1,2}.snap >one.json || fail "diff --json: exit $?"
expect_eq "$(jget one.json '[d["rate_elapsed_ns"], d["no_rate"], [[s["growth"], s["suspected_leak"], s["bytes_per_hour"]] for s in d["stacks"]]]')" \
    '[2000000000, null, [[512, true, 921600], [512, true, 921600]]]' "one process: JSON"
"$REPORT" --html one.html diff one/s0000{0,1,2}.snap || fail "diff --html: exit $?"
expect_eq "$(grep -o '"rate_elapsed_ns":[0-9a-z]*\|"no_rate":[a-z]*\|"bytes_per_hour":[0-9a-z]*' one.html | tr '\n' ' ')" \
    '"rate_elapsed_ns":2000000000 "no_rate":null "bytes_per_hour":921600 "bytes_per_hour":921600 ' "one process: the page's data"

# ---- different processes: no rate, said once ----
mkdir runs
"$TPROG/snapgen" rankseries runs 3 2 1
"$REPORT" diff --across-runs runs/s0000{0,1,2}.snap >runs.txt || fail "diff --across-runs: exit $?"
expect_eq "$(grep -c 'per hour\|/hour' runs.txt)" 1 "processes: one mention of the rate"
grep -qx 'growth per hour: none (the snapshots come from different processes, which share no clock)' runs.txt ||
    fail "processes: $(grep 'per hour' runs.txt)"
expect_eq "$(grep -c 'suspected leak (monotonic growth)$' runs.txt)" 2 "processes: the suspects are still there"
"$REPORT" --json diff --across-runs runs/s0000{0,1,2}.snap >runs.json || fail "diff --across-runs --json: exit $?"
expect_eq "$(jget runs.json '[d["rate_elapsed_ns"], d["no_rate"], [s["bytes_per_hour"] for s in d["stacks"]]]')" \
    '[null, "the snapshots come from different processes, which share no clock", [null, null]]' "processes: JSON"

# ---- end to end: a leak per periodic snapshot ----
line=$(site_line scenarios.c 'LEAK-SITE: leak_runtime')
mkdir out
GPULEAK_OUTPUT=$PWD/out/s.%n.snap GPULEAK_INTERVAL=150ms GPULEAK_KEEP=0 \
    traced "$TPROG/scenarios" periodic "$PWD/out" 4 >run.txt 2>err.txt || fail "scenarios periodic: exit $?"
[ ! -s err.txt ] || fail "stderr: $(cat err.txt)"
periodic=()
for f in $(ls out | sort -t. -k2,2n); do
    "$REPORT" --json "out/$f" >"out/$f.json"
    [ "$(jget "out/$f.json" 'd["snapshot"]["reason"]')" = periodic ] && periodic+=("out/$f")
done
[ "${#periodic[@]}" -ge 5 ] || fail "periodic snapshots: ${periodic[*]}"
# The snapshots that each hold one more leak (on a slow machine a snapshot
# may come twice before the program leaks again: a step without growth).
"$REPORT" --json diff "${periodic[@]}" >all.json || fail "diff --json: exit $?"
steps=$(python3 - all.json "${periodic[@]}" <<PY
import json, sys
d = json.load(open(sys.argv[1]))
row = [s for s in d["stacks"] if s["frames"] and s["frames"][0]["function"] == "leak_runtime"
       and s["frames"][0]["line"] == $line][0]
seen, keep = set(), []
for path, b in zip(sys.argv[2:], row["bytes"]):
    if b not in seen:
        seen.add(b)
        keep.append(path)
print(" ".join(keep))
PY
)
read -r -a steps <<<"$steps"
[ "${#steps[@]}" -ge 4 ] || fail "snapshots with one more leak each: ${steps[*]}"
"$REPORT" --json diff "${steps[@]}" >rate.json || fail "diff --json: exit $?"
"$REPORT" diff "${steps[@]}" >rate.txt || fail "diff: exit $?"
# the expected rate from the snapshots' own recorded times and bytes
read -r growth elapsed rate suspected <<<"$(jget rate.json "[' '.join(str(x) for x in [r['bytes'][-1] - r['bytes'][0], d['snapshots'][-1]['duration_ns'] - d['snapshots'][0]['duration_ns'], r['bytes_per_hour'], r['suspected_leak']]) for r in d['stacks'] if r['frames'][0]['function'] == 'leak_runtime' and r['frames'][0]['line'] == $line][0]")"
expect_eq "$suspected" True "periodic: the leak is a suspected leak"
expect_eq "$((growth % (1 << 20)))" 0 "periodic: 1 MiB a snapshot"
expect_eq "$(jget rate.json 'd["rate_elapsed_ns"]')" "$elapsed" "periodic: the time the rate is over"
expect_eq "$rate" "$(rate_of "$growth" "$elapsed")" "periodic: bytes per hour, from the snapshots' times"
grep -qx "growth per hour: over the $(python3 -c "print('%.2f' % ($elapsed / 1e9))") s from the first snapshot to the last" rate.txt ||
    fail "periodic: the clock line: $(grep '^growth per hour' rate.txt)"
expect_eq "$(grep -A4 "^+$(python3 -c "print(format($growth, ','))") bytes .*suspected leak" rate.txt | grep '^    rate: ')" \
    "    rate:        $(per_hour_text "$rate")" "periodic: the rate in the text, under the suspect"
