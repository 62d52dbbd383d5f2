#!/usr/bin/env bash
# Snapshots written with an older (or newer) layout of the array entries give
# the same report.  Fields are only appended to an entry, so each array record
# has a minimum entry size (GL_ENTRY_MIN_<PART>, common/snapshot_fields.h):
# the reader reads the fields an older writer did not write as 0 and skips
# the bytes of fields it does not know.  The inputs are checked-in seed
# snapshots of the report fuzzer (written by libgpuleak on fakecuda, and by
# snapgen), cut down to the minimum sizes by snapfields resize.
source "$ROOT/tests/lib.sh"
SEEDS=$ROOT/tests/fuzz/corpus/report
LONG_WARNING='entries carry fields this reader does not know; they were ignored'
mkdir full old zero newer
cp "$SEEDS/s-oom.snap" full/

# report LAYOUT SEED: the text and JSON reports of LAYOUT/SEED.snap, run in
# LAYOUT so that the file is named alike in every layout's report.
report() {
    (cd "$1" && "$REPORT" "$2.snap" >"$2.text" 2>"$2.err" && "$REPORT" --json "$2.snap" >"$2.json") ||
        fail "$1/$2.snap is not read: $(cat "$1/$2.err")"
}

# Every seed: the oldest layout (old) reads as today's layout with the
# appended fields 0 (zero), and a newer writer's longer entries (newer) read
# the same but for the one warning that says they were ignored.
# Between them these seeds hold every array record type (ALLOCS, DEVICES,
# PEAK, EVENTS with OOM and FREE stacks, POOLS, VMM, BAD_FREES, CALLS,
# TEARDOWN, TORCH_BLOCKS); every seed would triple the test's time.
SOME="g-leaks g-torchview s-ctx-teardown s-freestacks s-oom t-kinds t-vmm"
for b in $SOME; do
    f=$SEEDS/$b.snap
    "$TPROG/snapfields" resize "$f" "old/$b.snap" all min
    "$TPROG/snapfields" resize "old/$b.snap" "zero/$b.snap" all +0
    "$TPROG/snapfields" resize "old/$b.snap" "newer/$b.snap" all +24
    for layout in old zero newer; do report $layout "$b"; done
    cmp -s old/"$b".text zero/"$b".text || fail "$b: the oldest layout differs: $(diff zero/"$b".text old/"$b".text)"
    grep -q -F "$LONG_WARNING" newer/"$b".text || fail "$b: no warning for a newer writer's entries"
    grep -v -F "$LONG_WARNING" newer/"$b".text | cmp -s - old/"$b".text ||
        fail "$b: the newer layout differs: $(diff old/"$b".text newer/"$b".text)"
done
# The JSON reports alike, but for the file's size and that warning.
python3 - "$LONG_WARNING" old/*.json <<'PY' || fail "JSON reports differ"
import json, os, sys
def norm(v):
    if isinstance(v, dict):
        return {k: norm(x) for k, x in v.items() if k != "file_size"}
    if isinstance(v, list):
        return [norm(x) for x in v if not (isinstance(x, str) and x.endswith(sys.argv[1]))]
    return v
for old in sys.argv[2:]:
    want = norm(json.load(open(old)))
    for layout in ("zero", "newer"):
        got = norm(json.load(open(os.path.join(layout, os.path.basename(old)))))
        if got != want:
            sys.exit("%s: %s differs under %s" % (old, layout, [k for k in want if want[k] != got.get(k)]))
PY

# Where the appended fields held values, only they change: an OOM event's
# view of the driver's memory (EVENTS.mem_free and mem_total, appended to
# the format's first 56-byte entries) reads as not known, and so the
# events' kind (exceeded) is not classified.
# The hunks' line numbers are left out ("c" alone): they are where the
# report's sections put those lines, and a section added above them
# (report/sections/) is no change of the layout's reading.
report full s-oom
diff full/s-oom.text old/s-oom.text | sed -E 's/^[0-9]+(,[0-9]+)?([acd])[0-9]+(,[0-9]+)?$/\2/' >oom.diff || true
cat >oom.expected <<'EOF'
c
<     the driver: 25,165,824 bytes (24.0 MiB) free of 67,108,864 bytes (64.0 MiB): 6.0 MiB short
<     in use: 40.0 MiB = this process's live allocations 40.0 MiB + 0 B elsewhere
<     kind: the request exceeded what was free: 31,457,280 bytes asked, 25,165,824 free; this process held 41,943,040 of the 41,943,040 in use, 0 elsewhere
---
>     the driver's free memory is not known
>     kind: not classified: the driver's free memory is not known
c
<     the driver: 4,194,304 bytes (4.0 MiB) free of 67,108,864 bytes (64.0 MiB): more than the device has
<     in use: 60.0 MiB = this process's live allocations 60.0 MiB + 0 B elsewhere
<     kind: the request exceeded what was free: 134,217,728 bytes asked, 4,194,304 free; this process held 62,914,560 of the 62,914,560 in use, 0 elsewhere
---
>     the driver's free memory is not known
>     kind: not classified: the driver's free memory is not known
c
<     X out of memory on device 0 asking for 31,457,280 bytes (30.0 MiB) (driver: 25,165,824 bytes (24.0 MiB) free of 67,108,864 bytes (64.0 MiB)) at 0.02 s (seq 2)
<     X out of memory on device 0 asking for 134,217,728 bytes (128.0 MiB) (driver: 4,194,304 bytes (4.0 MiB) free of 67,108,864 bytes (64.0 MiB)) at 0.02 s (seq 4)
---
>     X out of memory on device 0 asking for 31,457,280 bytes (30.0 MiB) at 0.02 s (seq 2)
>     X out of memory on device 0 asking for 134,217,728 bytes (128.0 MiB) at 0.02 s (seq 4)
EOF
diff -u oom.expected oom.diff || fail "s-oom: more than the OOM events' memory view changed"
python3 - full/s-oom.json old/s-oom.json <<'PY' || fail "s-oom (JSON): more than mem_free and mem_total changed"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
changed = []
def walk(x, y, path):
    if isinstance(x, dict):
        for k in x:
            walk(x[k], y[k], path + "." + k)
    elif isinstance(x, list):
        assert len(x) == len(y), path
        for i, (p, q) in enumerate(zip(x, y)):
            walk(p, q, "%s[%d]" % (path, i))
    elif x != y:
        changed.append((path.split("[")[0] + "." + path.rsplit(".", 1)[1], y))
walk(a, b, "")
changed = [c for c in changed if not c[0].endswith(".file_size")]
want = {(".out_of_memory.events.mem_free", 0), (".out_of_memory.events.mem_total", 0),
        (".timeline.marks.mem_free", 0), (".timeline.marks.mem_total", 0)}
# and the classification made from them (report/analysis/oomkind.h)
want |= {(".out_of_memory.events." + k, 0) for k in ("free_bytes", "total_bytes", "used_bytes", "missing_bytes")}
want.add((".out_of_memory.events.kind", "unknown"))
assert len(changed) == 18 and set(changed) == want, changed  # 2 OOM events, in 2 places and their kind
PY

# An entry shorter than its record's minimum is no layout gpuleak ever
# wrote: one line naming the record and the sizes, exit 2.
"$TPROG/snapfields" resize "$SEEDS/s-oom.snap" short.snap ALLOCS 48
read -r at count < <(python3 - short.snap <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
pos = 16
while struct.unpack_from("<I", b, pos)[0] != 4:  # the first ALLOCS record
    pos += 16 + struct.unpack_from("<Q", b, pos + 8)[0]
print(pos, struct.unpack_from("<I", b, pos + 4)[0])
PY
)
rc=0
"$REPORT" short.snap >short.out 2>short.err || rc=$?
expect_eq "$rc" 2 "exit status for a short entry"
expect_eq "$(cat short.err)" "gpuleak-report: short.snap: ALLOCS count $count needs at least $((count * 56)) bytes, record has $((count * 48)) (at offset $at)" "a short entry's error"
[ ! -s short.out ] || fail "a report from a file with short entries"
