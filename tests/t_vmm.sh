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
