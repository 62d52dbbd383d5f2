# A snapshot taken while the program runs carries the driver's view: the
# default pool's reserved and used bytes (freed blocks stay reserved until a
# synchronization), and the device's free/total memory, which the
# fragmentation section compares with the live allocations.  The exit
# snapshot carries the view sampled when exit() began (on the writer thread,
# one second at most); the one written on a fatal signal has none.
source "$ROOT/tests/lib.sh"
mkdir snaps
env GPULEAK_OUTPUT=snaps/ LD_PRELOAD="$LIBGPULEAK" LD_LIBRARY_PATH="$FAKECUDA" "$TPROG/scenarios" pool-wait >ready.txt &
pid=$!
wait_for -t 4 "the program to be ready" grep -q ready ready.txt
name=$("$LAUNCHER" snapshot "$pid")
kill "$pid"; wait "$pid" 2>/dev/null || true
"$REPORT" --json "$name" >live.json
check_json live.json <<'PY'
MiB = 1 << 20
f = d["fragmentation"]["devices"][0]
eq([(p["reserved_bytes"], p["used_bytes"]) for p in f["pools"]], [(5 * MiB, 3 * MiB)], "default pool")
# the driver's used memory: the pool's 5 MiB and the primary context's own
# 4 MiB (fakecuda's model)
eq((f["live_bytes"], f["driver_used_bytes"]), (3 * MiB, 9 * MiB), "live vs what the driver has handed out")
eq(devices[0]["mem_total"] - devices[0]["mem_free"], 9 * MiB, "driver's view")
PY
final=$(ls snaps/*.snap | grep -v "$(basename "$name")")
"$REPORT" --json "$final" >final.json
check_json final.json <<'PY'
eq((d["snapshot"]["reason"], d["fragmentation"]["devices"][0]["pools"], devices[0]["mem_total"]),
   ("fatal-signal", [], 0), "no driver calls on the way out")
PY

# A normal exit: the same pool state plus 1 MiB from cudaMalloc.
mkdir exit stuck
env GPULEAK_OUTPUT=exit/ LD_PRELOAD="$LIBGPULEAK" LD_LIBRARY_PATH="$FAKECUDA" "$TPROG/scenarios" pool-exit
"$REPORT" --json exit/*.snap >exit.json
check_json exit.json <<'PY'
MiB = 1 << 20
f = d["fragmentation"]["devices"][0]
eq(d["snapshot"]["reason"], "exit", "reason")
eq([(p["reserved_bytes"], p["used_bytes"]) for p in f["pools"]], [(5 * MiB, 3 * MiB)],
   "default pool at exit")
eq((f["live_bytes"], f["driver_used_bytes"]), (4 * MiB, 10 * MiB), "live vs the driver at exit")
eq((devices[0]["mem_total"], devices[0]["mem_total"] - devices[0]["mem_free"]), (1 << 30, 10 * MiB),
   "driver's view at exit")
eq(sorted(devices), [0], "only the device used")
PY
"$REPORT" exit/*.snap | grep -qF "live: 4,194,304 bytes (4.0 MiB) in 4 allocations; driver reports 10,485,760 bytes (10.0 MiB) used, 6.0 MiB more than live" ||
    fail "text report of the driver's view at exit"

# A driver that does not answer at exit holds exit() up for one second, not
# for its minute; the snapshot is written without the driver's view.  The
# driver answers its first cuMemGetInfo (gpuleak's measure of the primary
# context when it is created) at once: it gets stuck later.
start=$(date +%s%N)
env FAKECUDA_MEMINFO_DELAY_MS=60000 FAKECUDA_MEMINFO_DELAY_SKIP=1 GPULEAK_OUTPUT=stuck/ LD_PRELOAD="$LIBGPULEAK" LD_LIBRARY_PATH="$FAKECUDA" \
    "$TPROG/scenarios" pool-exit
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
[ "$elapsed_ms" -lt 20000 ] || fail "exit waited ${elapsed_ms} ms for a stuck driver"
"$REPORT" --json stuck/*.snap >stuck.json
check_json stuck.json <<'PY'
MiB = 1 << 20
f = d["fragmentation"]["devices"][0]
eq((d["snapshot"]["reason"], f["pools"], devices[0]["mem_total"]), ("exit", [], 0), "no view in time")
eq(f["live_bytes"], 4 * MiB, "the snapshot itself is complete")
eq(sum(l["bytes"] for l in leaks), 4 * MiB, "leaks")
PY
