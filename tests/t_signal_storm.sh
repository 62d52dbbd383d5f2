# A signal storm: 8 threads churn allocations while the process receives 100
# snapshot signals.  It finishes, every snapshot parses and is consistent
# (the live allocations add up to the device's live bytes), and the final
# leaks are exact: thread t leaks t+1 x 1000 bytes, 36 allocations in all.
source "$ROOT/tests/lib.sh"
mkdir snaps
env GPULEAK_OUTPUT=snaps/ LD_PRELOAD="$LIBGPULEAK" LD_LIBRARY_PATH="$FAKECUDA" "$TPROG/churn" 8 20000 1500 >ready.txt &
pid=$!
# Signals are safe once the library's writer thread exists (first CUDA call).
writer_started() { grep -qx gpuleak-writer /proc/"$pid"/task/*/comm 2>/dev/null; }
wait_until -t 2 writer_started || true
for i in $(seq 100); do
    kill -USR1 "$pid" 2>/dev/null || break
    sleep 0.005
done
wait "$pid" || fail "churn exited with $?"
n=$(ls snaps | wc -l)
[ "$n" -ge 2 ] || fail "expected several snapshots, got $n"
for s in snaps/*.snap; do
    "$REPORT" --json "$s" >"$s.json" || fail "snapshot $s does not parse"
done
python3 - snaps/*.json <<'PY'
import json, sys
finals = 0
for f in sys.argv[1:]:
    d = json.load(open(f))
    for dev in d["devices"]:
        leaked = sum(l["bytes"] for l in d["leaks"] if l["device"] == dev["device"])
        count = sum(l["count"] for l in d["leaks"] if l["device"] == dev["device"])
        if (leaked, count) != (dev["live_bytes"], dev["live_count"]):
            sys.exit("FAIL: %s: allocations add up to %d bytes/%d, device says %d/%d"
                     % (f, leaked, count, dev["live_bytes"], dev["live_count"]))
        if dev["alloc_count"] - dev["free_count"] != dev["live_count"]:
            sys.exit("FAIL: %s: alloc_count - free_count != live_count" % f)
    if d["snapshot"]["final"]:
        finals += 1
        leaks = [(l["bytes"], l["count"], l["frames"][0]["function"]) for l in d["leaks"]]
        if leaks != [(36000, 36, "leak_in_thread")]:
            sys.exit("FAIL: final leaks %r" % leaks)
        dev = d["devices"][0]
        if (dev["alloc_count"], dev["free_count"]) != (8 * 20000 + 36, 8 * 20000):
            sys.exit("FAIL: final counts %d/%d" % (dev["alloc_count"], dev["free_count"]))
if finals != 1:
    sys.exit("FAIL: %d final snapshots" % finals)
PY
