# Snapshots requested while three threads make allocation pairs from 40
# stacks each (tests/programs/snap_calls_race.c): in every snapshot the
# allocation calls agree with the device counters, call for call.  (Before:
# the stacks' call counters were read as the file was written, after the
# state was copied; a thread's tally flushed in between, so 1 detach in ~30
# of t_attach_busy, and here most snapshots, counted calls no device had.)
source "$ROOT/tests/lib.sh"
traced "$TPROG/snap_calls_race" 12 || fail "run"
for i in $(seq 12); do
    [ -f "s$i.snap" ] || fail "no s$i.snap"
    "$REPORT" --json "s$i.snap" >"s$i.json"
    expect_eq "$(jget "s$i.json" '(sum(v["alloc_count"] for v in d["devices"]) - d["allocation_calls"]["calls"], sum(v["free_count"] for v in d["devices"]) - d["allocation_calls"]["frees"], d["allocation_calls"]["calls"] > 0)')" \
        "(0, 0, True)" "snapshot $i: device counters minus allocation calls"
done
echo ok
