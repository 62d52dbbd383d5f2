# Multicast objects (cuMulticastCreate): a generic allocation handle,
# released with cuMemRelease and kept alive by its mappings like a cuMemCreate
# handle.  A normal create, add, bind, map, unbind, release and unmap cycle
# leaves no leak and no unknown free; an object never released is a leak of
# kind multicast with its per-device size and the line that created it, but
# no part of any device's usage (what is bound to it is its cuMemCreate
# handles', counted once, there).  The driver answers the same with gpuleak.
source "$ROOT/tests/lib.sh"
normal=$(site_line multicast.c 'NORMAL-SITE')
leak=$(site_line multicast.c 'LEAK-SITE')

fc "$TPROG/multicast" probe >plain.out
GPULEAK_OUTPUT=final.snap traced "$TPROG/multicast" probe mid.snap >traced.out
expect_eq "$(tr '\n' ' ' <plain.out)" \
    "GRANULARITY 2097152 REFUSED bind-before-team 1 REFUSED add-twice 1 REFUSED unbind-not-a-bind 1 REFUSED released-object 1 " \
    "fakecuda's answers"
cmp -s plain.out traced.out || fail "driver answers differ under gpuleak: $(diff plain.out traced.out)"

"$REPORT" --json final.snap >final.json
"$REPORT" --json mid.snap >mid.json
check_json final.json <<PY
eq([(l["kind"], l["api"], l["bytes"], l["count"], l["device"], frame(l["frames"][0])) for l in leaks],
   [("multicast", "cuMulticastCreate", 6 << 20, 1, 0, "leak_multicast multicast.c:$leak")],
   "the object never released is the one leak")
eq((d["invalid_frees"]["count"], d["invalid_frees"]["refused_count"]), (0, 0), "no unknown or refused free")
eq([(x["device"], x["alloc_count"], x["free_count"], x["live_bytes"], x["peak_bytes"], x["unknown_free_count"])
    for x in d["devices"]],
   [(0, 1, 1, 0, 4 << 20, 0), (1, 1, 1, 0, 4 << 20, 0)],
   "usage: the bound cuMemCreate memory only, each device's own")
PY
# While its mapping keeps it alive after the release, the object is live.
check_json mid.json <<PY
eq(sorted((l["kind"], l["bytes"], l["device"], frame(l["frames"][0])) for l in leaks),
   [("multicast", 4 << 20, 0, "normal_cycle_object multicast.c:$normal"),
    ("virtual", 4 << 20, 0, "memory_on multicast.c:$(site_line multicast.c 'cuMemCreate(&h')"),
    ("virtual", 4 << 20, 1, "memory_on multicast.c:$(site_line multicast.c 'cuMemCreate(&h')")],
   "released but mapped: still live")
eq([x["live_bytes"] for x in d["devices"]], [4 << 20, 4 << 20], "live usage mid-run")
PY
"$REPORT" final.snap >final.txt
grep -qx "6,291,456 bytes (6.0 MiB) in 1 allocation: multicast memory on device 0 (cuMulticastCreate), not freed at exit" final.txt \
    || fail "text report: $(sed -n '/^LEAKS/,/^LEAK SUMMARY/p' final.txt)"
