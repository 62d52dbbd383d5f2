# A snapshot request, then SIGTERM 0-7 ms later, while the program is inside
# CUDA calls (issue 48, item 1).  The writer thread, writing the requested
# snapshot, asked the driver for its view of the device and waited for the
# driver's lock; the main thread held that lock (it was inside cuMemAlloc
# or cuMemGetInfo) and, in gpuleak's SIGTERM handler, waited for the
# writer's final snapshot.  After 10 s the handler gave up: no snapshot, no
# warning (old code: 8 of 30 runs here).  No snapshot path may wait for a
# lock that the thread being terminated can hold.
#
# Every run must die of SIGTERM (143) within the 2 s bound (6 s allowed on
# this loaded machine, far from the old 10 s hang), with a final
# fatal-signal snapshot that the reporter reads and that holds the 1 MiB
# leak; any other snapshot it wrote (the requested one) must read too.
# And the case itself must occur: at least one run whose requested snapshot
# never came (its writer stuck behind the driver's lock; 4 runs in 10), in
# up to 3 x RUNS runs.
source "$ROOT/tests/lib.sh"

# Each cuMemFree holds fakecuda's driver lock for 2 ms, as a real driver may
# hold its own while it waits for the device: most SIGTERMs land there.
export FAKECUDA_FREE_DELAY_MS=2 FAKECUDA_FREE_DELAY_LOCKED=1
RUNS=${TERM_AFTER_REQUEST_RUNS:-20}
[ "$GL_SAN" = tsan ] && RUNS=${TERM_AFTER_REQUEST_RUNS:-8}

one_run() { # RUN: starts the program, then USR1, then TERM 0-7 ms later
    local fifo=ready.$1 line= st=0
    mkfifo "$fifo"
    GPULEAK_OUTPUT=r$1.%n.snap LD_PRELOAD=$LIBGPULEAK LD_LIBRARY_PATH=$FAKECUDA${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
        "$TPROG/term_in_call" >"$fifo" 2>"r$1.err" &
    local pid=$!
    read -r line <"$fifo" || true
    [ "$line" = ready ] || fail "run $1: no ready line ($(cat "r$1.err"))"
    sleep 0.05 # well inside the loop
    kill -USR1 "$pid"
    sleep "0.00$((RANDOM % 8))"
    local t0
    t0=$(date +%s%N)
    kill -TERM "$pid"
    wait "$pid" || st=$?
    echo "$st $(( ($(date +%s%N) - t0) / 1000000 ))" >"r$1.status"
    for s in r$1.*.snap; do
        [ -f "$s" ] || continue
        "$REPORT" --json "$s" >"$s.json" 2>"$s.reperr" || echo "$?" >"$s.repstatus"
    done
    return 0
}

# The case must occur (below): beyond RUNS, runs go on, up to 3 x RUNS,
# until one run's requested snapshot never came (one file: the final).
# How often it occurs depends on the timing (4 runs in 10 plain; under ASan
# on a loaded machine, CI once saw none in 20).
stuck_seen() {
    local i files
    for i in $(seq "$1"); do
        files=(r$i.*.snap)
        [ -f "${files[0]}" ] && [ ${#files[@]} -eq 1 ] && return 0
    done
    return 1
}
i=0
while [ "$i" -lt "$RUNS" ] || { [ "$i" -lt $((3 * RUNS)) ] && ! stuck_seen "$i"; }; do
    i=$((i + 1))
    one_run "$i"
done
RUNS=$i

python3 - "$RUNS" "${GL_SAN:-plain}" <<'PY'
import glob, json, os, sys
runs = int(sys.argv[1])
bad = []
ok = 0
blocked = 0  # runs whose requested snapshot never came: the writer was stuck
for i in range(1, runs + 1):
    status, ms = open("r%d.status" % i).read().split()
    why = []
    if status != "143":
        why.append("status %s" % status)
    if int(ms) >= 6000:
        why.append("died %s ms after SIGTERM" % ms)
    finals = 0
    for snap in sorted(glob.glob("r%d.*.snap" % i)):
        if os.path.exists(snap + ".repstatus"):
            why.append("%s unreadable: %s" % (snap, open(snap + ".reperr").read().strip()))
            continue
        d = json.load(open(snap + ".json"))
        if d["snapshot"]["reason"] != "fatal-signal":
            continue
        finals += 1
        leaks = sorted((l["bytes"], l["count"], l["frames"][0]["function"]) for l in d["leaks"])
        # The loop's 4 KiB block is live when the signal lands between
        # cuMemAlloc and cuMemFree.
        if d["snapshot"]["final"] is not True or leaks not in (
                [(1048576, 1, "leak")], [(4096, 1, "main"), (1048576, 1, "leak")]):
            why.append("%s: final %r, leaks %r" % (snap, d["snapshot"]["final"], leaks))
    if finals != 1:
        why.append("%d fatal-signal snapshots" % finals)
    elif len(glob.glob("r%d.*.snap" % i)) == 1:
        blocked += 1
    err = open("r%d.err" % i).read()
    if err:
        why.append("stderr %r" % err)
    if why:
        bad.append("run %d: %s" % (i, ", ".join(why)))
    else:
        ok += 1
print("%d of %d runs wrote their final snapshot and died of SIGTERM in time" % (ok, runs))
print("%d runs had the writer stuck behind the driver's lock (no requested snapshot)" % blocked)
# The case this test is for must have happened: about 4 runs in 10 here.
# Under TSan the timing differs and the runs are few: not required there.
if blocked == 0 and runs >= 20 and sys.argv[2] != "tsan":
    bad.append("no run had the writer stuck in the driver: the test no longer reproduces issue 48's case")
if bad:
    sys.exit("FAIL: " + "; ".join(bad))
PY
