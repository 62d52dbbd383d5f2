# A snapshot taken while the program runs carries the driver's view: the
# default pool's reserved and used bytes (freed blocks stay reserved until a
# synchronization), and the device's free/total memory, which the
# fragmentation section compares with the live allocations.  The final
# snapshot at exit never calls into CUDA.
source "$ROOT/tests/lib.sh"
mkdir snaps
env GPULEAK_OUTPUT=snaps/ LD_PRELOAD="$LIBGPULEAK" LD_LIBRARY_PATH="$FAKECUDA" "$TPROG/scenarios" pool-wait >ready.txt &
pid=$!
for i in $(seq 200); do grep -q ready ready.txt && break; sleep 0.02; done
name=$("$LAUNCHER" snapshot "$pid")
kill "$pid"; wait "$pid" 2>/dev/null || true
"$REPORT" --json "$name" >live.json
check_json live.json <<'PY'
MiB = 1 << 20
f = d["fragmentation"]["devices"][0]
eq([(p["reserved_bytes"], p["used_bytes"]) for p in f["pools"]], [(5 * MiB, 3 * MiB)], "default pool")
eq((f["live_bytes"], f["driver_used_bytes"]), (3 * MiB, 5 * MiB), "live vs what the driver has handed out")
eq(devices[0]["mem_total"] - devices[0]["mem_free"], 5 * MiB, "driver's view")
PY
final=$(ls snaps/*.snap | grep -v "$(basename "$name")")
"$REPORT" --json "$final" >final.json
check_json final.json <<'PY'
eq((d["snapshot"]["reason"], d["fragmentation"]["devices"][0]["pools"], devices[0]["mem_total"]),
   ("fatal-signal", [], 0), "no driver calls on the way out")
PY
