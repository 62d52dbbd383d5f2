# Per-thread event rings merged in stamp order (interpose/state/events.h;
# docs/performance.md "The sequence number"): whatever happens to the
# thread that recorded them, a snapshot's history holds exactly the events
# its counters count, numbered 1, 2, 3 ... in an order that keeps each
# address's events in turn (ALLOC, FREE, ALLOC ...) and gives each live
# allocation the number of its ALLOC event.
#   - a thread that exits with its events still in its lane;
#   - fork: the child starts empty, the parent keeps its events;
#   - a snapshot during a storm of allocations from 4 threads, which reuse
#     each other's addresses (fakecuda hands freed ones out again);
#   - attach and detach: a second attach's history starts after the first.
source "$ROOT/tests/lib.sh"
export GPULEAK_MAX_ENTRIES=1000000 # no wrap: every event since the start is there

# check SNAPSHOT FIRST-SEQ ALLOCS FREES: the history is complete from
# FIRST-SEQ (1: the process's first event), its ALLOC and FREE events are
# exactly ALLOCS and FREES (when given, else the devices' counts), and the
# order rules above hold.
check() {
    python3 - "$@" <<'PY' || fail "$1"
import struct, sys
path, first = sys.argv[1], int(sys.argv[2])
want = [int(x) for x in sys.argv[3:5]] if len(sys.argv) > 3 else None
data = open(path, "rb").read()
assert data[:8] == b"GPULEAK\x1a", "magic"
off, events, allocs, devices = 16, [], [], []
while off < len(data):
    rtype, count, length = struct.unpack_from("<IIQ", data, off)
    off += 16
    size = length // count if count else 0
    for i in range(count if rtype in (4, 5, 7) else 0):
        at = off + i * size
        if rtype == 7:
            seq, t, ptr, _, _, _, _, typ = struct.unpack_from("<QQQQQIiH", data, at)
            events.append((seq, t, ptr, typ))
        elif rtype == 4:
            ptr, _, seq = struct.unpack_from("<QQQ", data, at)
            allocs.append((ptr, seq))
        elif rtype == 5:
            devices.append(struct.unpack_from("<QQ", data, at + 48))
    off += length
    if rtype == 0xFFFF or length == 0 and rtype == 0:
        break
seqs = [e[0] for e in events]
def bad(why):
    sys.exit("%s: %s" % (path, why))
if not seqs or seqs[0] != first or seqs != list(range(first, first + len(seqs))):
    bad("history not numbered %d, %d ... without gaps: %r" % (first, first + 1, seqs[:8]))
n_alloc = sum(e[3] == 1 for e in events)
n_free = sum(e[3] == 2 for e in events)
counted = [sum(d[0] for d in devices), sum(d[1] for d in devices)]
if want is not None and [n_alloc, n_free] != want:
    bad("ALLOC and FREE events %r, expected %r" % ([n_alloc, n_free], want))
if [n_alloc, n_free] != counted:
    bad("ALLOC and FREE events %r, the devices count %r" % ([n_alloc, n_free], counted))
last = {}
for seq, t, ptr, typ in events:
    if typ not in (1, 2):
        continue
    prev = last.get(ptr)
    if (typ == 1) != (prev is None or prev[2] == 2):
        bad("address %#x: %s at seq %d after %r" % (ptr, "ALLOC" if typ == 1 else "FREE", seq, prev))
    if prev is not None and t <= prev[1]:
        bad("address %#x: time %d at seq %d not after %d" % (ptr, t, seq, prev[1]))
    last[ptr] = (seq, t, typ)
for ptr, seq in allocs:
    if last.get(ptr, (0, 0, 0))[::2] != (seq, 1):
        bad("live %#x has seq %d; its address's last event is %r" % (ptr, seq, last.get(ptr)))
print("%s: %d events, %d live" % (path, len(events), len(allocs)))
PY
}

mkdir out
traced "$TPROG/event_rings" exit "$PWD/out" || fail "exit: $?"
check out/exit.snap 1 9 4

rm -rf out && mkdir out
traced "$TPROG/event_rings" fork "$PWD/out" || fail "fork: $?"
check out/parent.snap 1 5 4
# The child's numbering goes on from the parent's: its first event is
# after the parent's 9 (and the parent's snapshot mark is not its).
python3 - out/child.snap <<'PY' || fail "child's first event"
import struct, sys
data = open(sys.argv[1], "rb").read()
off = 16
while off < len(data):
    rtype, count, length = struct.unpack_from("<IIQ", data, off)
    if rtype == 7:
        seq = struct.unpack_from("<Q", data, off + 16)[0]
        sys.exit(0 if seq == 10 else "child's first event is seq %d, not 10" % seq)
    off += 16 + length
sys.exit("child has no events")
PY
check out/child.snap 10 1 0

rm -rf out && mkdir out
traced "$TPROG/event_rings" storm "$PWD/out" 4 6000 4 || fail "storm: $?"
for s in out/storm.[0-9]*.snap; do check "$s" 1; done
check out/storm.held.snap 1 24000 $((24000 - 4 * 375))
check out/storm.end.snap 1 24000 24000

rm -rf out && mkdir out
fc "$TPROG/event_rings" detach "$LIBGPULEAK_SO" "$PWD/out" || fail "detach: $?"
snaps=($(ls out/*.snap | sort -t. -k3,3n))
expect_eq "${#snaps[@]}" 2 "a snapshot a detach"
check "${snaps[0]}" 1 4 3
first=$(python3 -c "
import struct, sys
d = open(sys.argv[1], 'rb').read(); off = 16
while off < len(d):
    t, c, n = struct.unpack_from('<IIQ', d, off)
    if t == 7: print(struct.unpack_from('<Q', d, off + 16)[0]); break
    off += 16 + n" "${snaps[1]}")
[ -n "$first" ] && [ "$first" -gt 7 ] || fail "the second attach's history starts at seq '$first', after the first's 7 events"
check "${snaps[1]}" "$first" 1 1
