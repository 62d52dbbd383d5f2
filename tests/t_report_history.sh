#!/usr/bin/env bash
# Peak details, timeline and fragmentation of the "history" snapshot, whose
# numbers are all known (tests/report/snapgen_scen.inc): peak 28 MiB at seq
# 5 after annotation "epoch 1", the allocations before it, per-kind peaks,
# the exact raw series, the chart; holes, pages, pinning stacks, size
# classes, pool and virtual memory.  Then the same snapshot without EVENTS:
# every section says what it cannot know.
source "$ROOT/tests/lib.sh"
"$TPROG/snapgen" history h.snap
"$REPORT" --json h.snap > h.json || fail "exit $?"
"$REPORT" h.snap | grep -qx '    the driver: 1,073,741,824 bytes (1.0 GiB) free of 85,899,345,920 bytes (80.0 GiB): enough free in all, so not in one piece or over a limit' ||
    fail "OOM with enough free memory"
check_json h.json <<'PY'
MiB = 1 << 20
ph = devices[0]["peak_history"]
eq((ph["covered"], ph["annotation"], ph["annotation_seq"], ph["annotation_time_ns"]),
   (True, "epoch 1", 4, 40000000), "peak annotation")
eq([(b["seq"], b["size"], b["frames"][0]["function"]) for b in ph["before"]],
   [(2, 4 * MiB, "alloc_weights"), (3, 8 * MiB, "alloc_activations"), (5, 16 * MiB, "tie_b")], "before the peak")
eq([(k["kind"], k["peak_bytes"], k["peak_time_ns"]) for k in ph["by_kind"]],
   [("device", 28 * MiB, 50000000), ("managed", MiB, 120000000), ("virtual", 4 * MiB, 140000000)], "peak by kind")
t = d["timeline"]
eq((t["present"], t["events"], t["allocs"], t["frees"], t["first_seq"], t["last_seq"], t["inconsistent"]),
   (True, 15, 9, 2, 1, 15, False), "timeline counts")
eq([(m["type"], m["seq"], m["label"]) for m in t["marks"]],
   [("annotation", 1, "warmup"), ("annotation", 4, "epoch 1"), ("oom", 8, None), ("annotation", 15, "done")], "marks")
# the OOM at seq 8: 1 GiB asked with 1 GiB free of 80 GiB, 4 MiB of this
# process's live then (alloc_weights'), 79 GiB in use elsewhere
o = d["out_of_memory"]
eq((o["failed_count"], [(e["seq"], e["api"], e["requested_bytes"], e["mem_free"], e["live_bytes"], e["unaccounted_bytes"],
                         e["frames"][0]["function"], e["then"]) for e in o["events"]]),
   (1, [(8, "cudaMalloc", 1 << 30, 1 << 30, 4 * MiB, 79 * (1 << 30) - 4 * MiB, "alloc_activations", None)]),
   "out of memory")
s = t["devices"][0]
eq((s["device"], s["start_bytes"], s["max_bytes"], s["max_seq"]), (0, 0, 28 * MiB, 5), "series head")
eq(s["time_ns"], [x * 1000000 for x in (20, 30, 50, 60, 70, 90, 100, 110, 120, 130, 140)], "series times")
eq(s["bytes"], [4194304, 12582912, 29360128, 12582912, 4194304, 4456448, 5505024, 5570560,
                6619136, 8716288, 10813440], "series bytes")
f = d["fragmentation"]["devices"][0]
eq((f["live_bytes"], f["driver_used_bytes"], f["address_bytes"], f["address_count"]),
   (10813440, 10 << 30, 5570560, 4), "frag live")
eq((f["holes"], f["hole_bytes"], f["largest_hole"], f["span_start"], f["span_end"]),
   (2, 4980736, 3145728, 0x10000000, 0x10a10000), "holes")
eq(round(f["fragmentation"], 6), round(1 - 3145728 / 4980736, 6), "headline")
eq((f["pages"], f["sparse_pages"], f["sparse_empty_bytes"]), (5, 2, 3866624), "pages")
eq([(p["empty_bytes"], p["count"], p["frames"][0]["function"]) for p in f["pinning"]],
   [(2031616, 1, "tie_a"), (1835008, 1, "alloc_activations")], "pinning")
eq([(c["min_bytes"], c["count"]) for c in f["live_size_classes"]],
   [(65536, 1), (262144, 1), (1 << 20, 2), (2 << 20, 2), (4 << 20, 1)], "live classes")
eq([(c["min_bytes"], c["count"]) for c in f["requested_size_classes"]][-2:], [(8 << 20, 1), (16 << 20, 1)], "requested classes")
eq((f["pool_reserved_bytes"], f["pool_used_bytes"], f["pools"][0]["reserved_high"]), (32 * MiB, 8 * MiB, 48 * MiB), "pools")
eq((f["va_reserved_bytes"], f["va_mapped_bytes"], f["physical_bytes"], f["physical_unmapped_bytes"]),
   (64 * MiB, 2 * MiB, 4 * MiB, 2 * MiB), "vmm")
PY
"$REPORT" h.snap > h.txt
grep -qx '    after annotation "epoch 1" (0.04 s)' h.txt || fail "text annotation"
grep -qx '        16,777,216 bytes (16.0 MiB) at 0.05 s (seq 5) device: tie_b (snapgen.c:[0-9]*)' h.txt || fail "text before"
grep -qx '    highest by kind in the history: device 28.0 MiB at 0.05 s, managed 1.0 MiB at 0.12 s, virtual 4.0 MiB at 0.14 s' h.txt || fail "text kinds"
grep -qx '    2 "epoch 1" at 0.04 s (seq 4)' h.txt || fail "legend"
grep -qx '    X out of memory on device 0 asking for 1,073,741,824 bytes (1.0 GiB) (driver: 1,073,741,824 bytes (1.0 GiB) free of 85,899,345,920 bytes (80.0 GiB)) at 0.08 s (seq 8)' h.txt || fail "legend oom"
grep -q '^    28.0 MiB ┤ █ *$' h.txt || fail "chart top row"
grep -qE '^ +[0-9^X]*\^' h.txt || fail "peak marker"
grep -qx 'device 0: fragmentation 0.37 (1 - largest hole / free bytes in the used span)' h.txt || fail "headline"
grep -qx '    holes: 2 holes in the span 0x10000000-0x10a10000 (10.1 MiB): 4,980,736 bytes (4.8 MiB) free, largest 3,145,728 bytes (3.0 MiB)' h.txt || fail "holes line"
grep -q '^    pages: 5 pages of 2 MiB touched (10.0 MiB) for 5.3 MiB of device/pool allocations: 53.1% occupancy; 2 mostly-empty pages' h.txt || fail "pages line"
grep -q '^    virtual memory: 67,108,864 bytes (64.0 MiB) of address space reserved, 2,097,152 bytes (2.0 MiB) mapped, 4,194,304 bytes (4.0 MiB) physical created (2.0 MiB of it not mapped)$' h.txt || fail "vmm line"
grep -qx '    pools: 1 pool, 33,554,432 bytes (32.0 MiB) reserved, 8,388,608 bytes (8.0 MiB) used (24.0 MiB reserved but unused)' h.txt || fail "pools line"
grep -q '^    SUMMARY' h.txt && fail "layout"
grep -qx '    device 0: peak 28.0 MiB at 0.05 s, live 10.3 MiB, fragmentation 0.37' h.txt || fail "summary device line"
# --sections limits the text and JSON
"$REPORT" --sections timeline h.snap > s.txt
grep -q '^LEAKS$' s.txt && fail "--sections timeline printed leaks"
grep -qx 'TIMELINE' s.txt || fail "--sections timeline"
"$REPORT" --json --sections peak h.snap > s.json
expect_eq "$(jget s.json '["timeline" in d, "fragmentation" in d, "leaks" in d, "devices" in d]')" '[false, false, false, true]' "--sections json"

# the same snapshot without a history
"$TPROG/snapgen" nohistory n.snap
"$REPORT" n.snap > n.txt || fail "nohistory exit"
expect_eq "$(sed -n '/^TIMELINE$/{n;p}' n.txt)" "No history in this snapshot." "no history line"
grep -q '^(no history in this snapshot: the annotation and allocations before each' n.txt || fail "peak note"
grep -qx '    size classes:                    live ' n.txt || fail "classes without requests"
expect_eq "$(sed -n '/^OUT OF MEMORY$/,/^$/p' n.txt | tail -n +2 | head -2)" \
    "1 allocation failed for lack of memory: 1 on device 0.
The history holds none of them (it is off, or they were before the events it keeps)." "OOM without a history"
"$REPORT" --json n.snap > n.json
check_json n.json <<'PY'
eq(devices[0]["peak_history"], None, "no peak history")
eq((d["timeline"]["present"], d["timeline"]["devices"]), (False, []), "no timeline")
eq(d["fragmentation"]["devices"][0]["requested_size_classes"], None, "no requests")
eq(d["fragmentation"]["devices"][0]["holes"], 2, "fragmentation still there")
eq(d["out_of_memory"], {"failed_count": 1, "events": [], "torch": None}, "failed count, no events, no PyTorch out-of-memory")
PY
echo ok
