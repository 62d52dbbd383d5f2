# Virtual memory management: physical memory (cuMemCreate) is what counts,
# with the stack of cuMemCreate; a handle released while mapped stays alive
# until unmapped, and a handle is referenced by cuMemCreate and by every
# cuMemRetainAllocationHandle (NCCL frees that way) until as many releases;
# create/map/unmap/release in each order the driver allows.
source "$ROOT/tests/lib.sh"
GPULEAK_OUTPUT=final.snap traced "$TPROG/driver_lifecycle" vmm
"$REPORT" --json final.snap >final.json
"$REPORT" --json mid.snap >mid.json
check_json final.json <<'PY'
eq([(l["kind"], l["api"], l["bytes"], l["count"], l["frames"][1]["function"]) for l in leaks],
   [("virtual", "cuMemCreate", 4194304, 1, "leak_vmm"), ("virtual", "cuMemCreate", 2097152, 1, "retained_leak")],
   "leaks at exit (a retained reference keeps memory alive)")
eq((devices[0]["alloc_count"], devices[0]["free_count"]), (6, 4), "handles created/gone")
eq(devices[0]["unknown_free_count"], 0, "every release matched (cuMemRetainAllocationHandle counted)")
PY
# Mid-run (requested through the public API): the released-but-mapped handle
# is still live.
check_json mid.json <<'PY'
eq(d["snapshot"]["reason"], "request", "reason")
eq(sorted((l["bytes"], l["frames"][1]["function"]) for l in leaks),
   [(2097152, "mapped_after_release"), (4194304, "leak_vmm")], "live mid-run")
PY
# Address space: cuMemAddressReserve names no device; the 16 MiB reservation
# holding the leaked mapping counts on device 0, the 8 MiB one with nothing
# mapped on no device.
check_json final.json <<'PY'
fd = d["fragmentation"]["devices"]
eq([(x["device"], x["reservations"], x["va_reserved_bytes"], x["mappings"], x["va_mapped_bytes"]) for x in fd],
   [(0, 1, 16 << 20, 1, 4 << 20)], "reservations and mappings per device")
eq((d["fragmentation"]["idle_reservations"], d["fragmentation"]["idle_reserved_bytes"]), (1, 8 << 20), "idle reservations")
PY
"$REPORT" final.snap >final.txt
grep -q "virtual memory: 16,777,216 bytes (16.0 MiB) of address space reserved, 4,194,304 bytes (4.0 MiB) mapped" final.txt \
    || fail "text: device 0 reservation: $(grep 'virtual memory' final.txt)"
grep -q "virtual address space reserved with nothing mapped in it: 8,388,608 bytes (8.0 MiB) in 1 reservation" final.txt \
    || fail "text: idle reservation: $(sed -n '/FRAGMENTATION/,$p' final.txt)"

# 150 handles released while mapped, then one cuMemUnmap over all of them
# (more than the 64 gpuleak settles per batch): every one is gone.
GPULEAK_OUTPUT=many.snap traced "$TPROG/driver_lifecycle" vmm-many
"$REPORT" --json many-mapped.snap >many-mid.json
"$REPORT" --json many.snap >many.json
check_json many-mid.json <<'PY'
eq([(l["api"], l["bytes"], l["count"], l["frames"][1]["function"]) for l in leaks],
   [("cuMemCreate", 150 * 2097152, 150, "released_while_mapped")], "150 live while mapped")
PY
check_json many.json <<'PY'
eq(leaks, [], "every handle gone after the one unmap")
dv = devices[0]
eq((dv["alloc_count"], dv["free_count"], dv["live_bytes"], dv["peak_bytes"], dv["unknown_free_count"]),
   (150, 150, 0, 150 * 2097152, 0), "counts")
PY
