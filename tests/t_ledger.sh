# The ledger of used memory (LEDGER, JSON `ledger`): on fakecuda, whose
# contexts (4 MiB + 1 MiB per ordinal) and modules (2 MiB pages) cost known
# amounts, every row of each device's used memory is exact, and what is left
# unexplained is exactly the memory another process took after the context
# was created (FAKECUDA_OTHER_USED_LATER: 7 MiB); what others held before
# (FAKECUDA_OTHER_USED: 3 MiB) is in the context's row, as its label says.
# A context reset and created again is measured again; a snapshot written
# before the measure existed (104-byte DEVICES entries) says "not measured"
# and leaves it all in "unexplained".
source "$ROOT/tests/lib.sh"
export FAKECUDA_OTHER_USED=3145728 FAKECUDA_OTHER_USED_LATER=7340032
GPULEAK_OUTPUT=l.snap traced "$TPROG/ledger" || fail "ledger run"
"$REPORT" --json l.snap >l.json
json_assert l.json '' <<'PY'
MiB = 1 << 20
L = {x["device"]: x for x in d["ledger"]}
eq(sorted(L), [0, 1], "a ledger per device with the driver's view")
l0, l1 = L[0], L[1]
# device 0: 6 MiB cudaMalloc, 2 MiB pool, 2 MiB graph live; 2 MiB idle in the
# default pool and 2 MiB in its own; 2 MiB idle in the graph memory pool; a
# 4 MiB module; the context 4 MiB + 3 MiB others' then; 7 MiB others' later
eq([(k["kind"], k["bytes"], k["count"]) for k in l0["live_by_kind"]],
   [("device", 6 * MiB, 2), ("pool", 2 * MiB, 1), ("graph", 2 * MiB, 1)], "device 0: live by kind")
eq((l0["live_bytes"], l0["allocator_caches_bytes"], l0["pool_reserve_idle_bytes"], l0["pools"],
    l0["graph_pool_reserve_idle_bytes"], l0["graph_pool"], l0["modules_bytes"], l0["modules_count"],
    l0["context"], l0["ipc_bytes"], l0["external_bytes"], l0["managed_not_counted_bytes"]),
   (10 * MiB, 0, 4 * MiB, 2, 2 * MiB, True, 4 * MiB, 1,
    {"measured": True, "used_at_create_bytes": 7 * MiB, "creations": 1}, 0, 0, 0), "device 0: rows")
eq((l0["used_bytes"], l0["explained_bytes"], l0["unexplained_bytes"]), (34 * MiB, 27 * MiB, 7 * MiB),
   "device 0: the remainder is the other process's later use")
eq(l0["used_bytes"], l0["mem_total"] - l0["mem_free"], "device 0: used is total - free")
eq(round(l0["unexplained_pct"], 3), round(7 * 100 / 34, 3), "device 0: its share")
# device 1: a 2 MiB cudaMalloc; its context 5 MiB + 3 MiB; 7 MiB later
eq((l1["live_bytes"], l1["pool_reserve_idle_bytes"], l1["graph_pool"], l1["modules_bytes"], l1["context"],
    l1["used_bytes"], l1["unexplained_bytes"]),
   (2 * MiB, 0, False, 0, {"measured": True, "used_at_create_bytes": 8 * MiB, "creations": 1}, 17 * MiB, 7 * MiB),
   "device 1")
PY
"$REPORT" --sections ledger l.snap >l.txt
sed -n '/^LEDGER$/,/^$/p' l.txt >section.txt
cat >want.txt <<'EOT'
LEDGER
device 0: 35,651,584 bytes (34.0 MiB) used of 1.0 GiB (total - free, the driver's view):
        10,485,760  (10.0 MiB)     29.4%  live allocations of this process
         6,291,456  (6.0 MiB)               device: 2 allocations
         2,097,152  (2.0 MiB)               pool: 1 allocation
         2,097,152  (2.0 MiB)               graph: 1 allocation
                 0                          of them, held by allocator caches (built-in rules)
         4,194,304  (4.0 MiB)      11.8%  memory pools' reserve, not allocated
         2,097,152  (2.0 MiB)       5.9%  graph memory pool's reserve, not allocated
         4,194,304  (4.0 MiB)      11.8%  loaded modules
         7,340,032  (7.0 MiB)      20.6%  CUDA context(s), and other processes when it was created
                 0                  0.0%  mapped from other processes (their allocations)
                 0                  0.0%  other APIs' memory imported here (external)
         7,340,032  (7.0 MiB)      20.6%  unexplained: other processes, or memory gpuleak did not see

EOT
diff -u want.txt section.txt || fail "LEDGER section"
# the section is asked for like the others; without it, JSON has no ledger
"$REPORT" --json --sections leaks l.snap >leaks.json
expect_eq "$(jget leaks.json '"ledger" in d')" False "ledger outside --sections"
"$REPORT" --sections leaks l.snap | grep -q '^LEDGER$' && fail "LEDGER outside --sections"

# A reset, then the context is created again, and measured again: by then
# the other process's later use was there, so it is in the context's row.
GPULEAK_OUTPUT=r.snap traced "$TPROG/ledger" reset || fail "ledger reset run"
"$REPORT" --json r.snap >r.json
json_assert r.json '' <<'PY'
MiB = 1 << 20
l0 = d["ledger"][0]
eq((l0["context"], l0["used_bytes"], l0["unexplained_bytes"]),
   ({"measured": True, "used_at_create_bytes": 14 * MiB, "creations": 2}, 34 * MiB, 0), "measured again")
PY
"$REPORT" --sections ledger r.snap | grep -qx '        14,680,064  (14.0 MiB)     41.2%  CUDA context(s), and other processes when it was created (the last of 2 creations)' ||
    fail "the count of creations"

# A snapshot from before the measure: DEVICES entries of 104 bytes.
python3 - l.snap old.snap <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
out, pos, shift = bytearray(b[:16]), 16, 0
while pos < len(b):
    rtype, count, length = struct.unpack_from("<IIQ", b, pos)
    payload = b[pos + 16:pos + 16 + length]
    if rtype == 5:  # DEVICES: keep each entry's first 104 bytes
        stride = length // count
        payload = b"".join(payload[i * stride:i * stride + 104] for i in range(count))
        shift += length - len(payload)
    if rtype == 0xffffffff:  # END: the offset of its own header moved
        recs, off = struct.unpack("<QQ", payload)
        payload = struct.pack("<QQ", recs, off - shift)
    out += struct.pack("<IIQ", rtype, count, len(payload)) + payload
    pos += 16 + length
open(sys.argv[2], "wb").write(out)
PY
[ "$(($(stat -c %s l.snap) - $(stat -c %s old.snap)))" = 144 ] || fail "old.snap: 2 entries 72 bytes shorter"
"$REPORT" --json old.snap >old.json || fail "a 104-byte DEVICES entry is read"
json_assert old.json '' <<'PY'
MiB = 1 << 20
l0 = d["ledger"][0]
eq((l0["context"], l0["used_bytes"], l0["explained_bytes"], l0["unexplained_bytes"]),
   ({"measured": False, "used_at_create_bytes": None, "creations": 0}, 34 * MiB, 20 * MiB, 14 * MiB),
   "not measured: the context is unexplained")
eq(d["warnings"], [], "no warning for an older writer's entries")
PY
"$REPORT" --sections ledger old.snap >old.txt
grep -qx '                 -                        CUDA context: not measured (in "unexplained")' old.txt ||
    fail "not measured: $(cat old.txt)"
grep -qx '        14,680,064  (14.0 MiB)     41.2%  unexplained: other processes, or memory gpuleak did not see' old.txt ||
    fail "old snapshot's remainder"
