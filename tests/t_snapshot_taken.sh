# A snapshot's "taken" time is after everything it holds: the last event of
# its history, its marks and each device's peak.  churn: 2 threads allocating and freeing while periodic
# snapshots are taken every 100 ms (600,000 pairs last several of them even on a fast machine), then the exit snapshot.  (The time was
# stamped before the driver was asked and the state copied: taken 4.14 s,
# peak 4.18 s, events up to 4.24 s.)
source "$ROOT/tests/lib.sh"
GPULEAK_INTERVAL=100ms GPULEAK_OUTPUT=s.%n.snap traced "$TPROG/churn" 2 600000 || fail "churn"
n=0
for f in s.*.snap; do
    "$REPORT" --json "$f" >r.json
    check_json r.json <<PY
s, t = d["snapshot"], d["timeline"]
taken = s["duration_ns"]
eq(t["present"], True, "$f: a history")
# the reporter's end of the timeline is the later of the taken time and the
# last event
eq(t["end_ns"], taken, "$f: the last event is not after the snapshot was taken (%d)" % taken)
eq([m for m in t["marks"] if m["time_ns"] > taken], [], "$f: marks after the taken time")
eq([x["device"] for x in devices.values() if x["peak_time_ns"] > taken], [], "$f: a peak after the taken time")
PY
    n=$((n + 1))
done
[ "$n" -ge 2 ] || fail "expected periodic snapshots and the exit one, got $n"
exit 0
