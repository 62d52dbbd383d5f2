#!/usr/bin/env bash
# Memory by phase (issue 23 item 4).  tests/programs/phases.c on fakecuda:
# "load" (64 MiB of weights, 2 MiB of NCCL), two epochs of forward (3 x 8
# MiB), backward (16 MiB, then everything of the epoch freed) and step (4
# MiB workspace freed, 1 MiB kept: the leak), "eval" (12 MiB), "teardown".
# Every phase's peak, net change and peak composition by category are
# exact, in text and JSON, with the test's --categories file.  Then a ring
# that wrapped (snapgen phasewrap), a snapshot without history, the
# categories file's errors, and the page's table.
source "$ROOT/tests/lib.sh"
MiB=1048576
traced "$TPROG/phases" || fail "phases exit $?"
snap=$(only_snapshot)
cat > cats.txt <<'CAT'
# the program's own categories, in the suppression syntax
{
   weights
   ...
   fun:load_weights
}
{
   activations
   ...
   fun:forward_activation
}
{
   gradients
   ...
   fun:backward_grads
}
CAT
"$REPORT" --json --categories cats.txt "$snap" > p.json || fail "json exit $?"
leak_line=$(site_line phases.c 'PHASES-LEAK')
check_json p.json <<PY
M = $MiB
P = d["phases"]
eq((P["present"], P["wrapped"], P["first_seq"], P["unmatched_ends"], P["too_deep"], P["inconsistent"]),
   (True, False, 1, 0, 0, False), "phases head")
eq(P["categories"][:3], ["weights", "activations", "gradients"], "user categories first")
rows = [(p["label"], p["depth"], p["parent"], p["bracketed"], p["start_known"], p["ended_by"]) for p in P["list"]]
eq(rows, [("load", 0, -1, True, True, "end"),
          ("epoch 1", 0, -1, False, True, "next"),
          ("forward", 1, 1, True, True, "end"), ("backward", 1, 1, True, True, "end"),
          ("step", 1, 1, True, True, "end"),
          ("epoch 2", 0, -1, False, True, "next"),
          ("forward", 1, 5, True, True, "end"), ("backward", 1, 5, True, True, "end"),
          ("step", 1, 5, True, True, "end"),
          ("eval", 0, -1, False, True, "next"), ("teardown", 0, -1, False, True, "history")], "structure")
for p in P["list"]:
    eq([x["device"] for x in p["devices"]], [0], "devices of " + p["label"])
figs = [(p["label"], v["start_bytes"] // M, v["end_bytes"] // M, v["net_bytes"] // M if v["net_bytes"] >= 0 else -((-v["net_bytes"]) // M),
         v["peak_bytes"] // M, v["peak_at_start"], v["allocs"], v["frees"])
        for p in P["list"] for v in p["devices"]]
eq(figs, [("load", 0, 66, 66, 66, False, 2, 0),
          ("epoch 1", 66, 67, 1, 106, False, 6, 5),
          ("forward", 66, 90, 24, 90, False, 3, 0),
          ("backward", 90, 66, -24, 106, False, 1, 4),
          ("step", 66, 67, 1, 70, False, 2, 1),
          ("epoch 2", 67, 68, 1, 107, False, 6, 5),
          ("forward", 67, 91, 24, 91, False, 3, 0),
          ("backward", 91, 67, -24, 107, False, 1, 4),
          ("step", 67, 68, 1, 71, False, 2, 1),
          ("eval", 68, 68, 0, 80, False, 1, 1),
          ("teardown", 68, 2, -66, 68, True, 0, 2)], "start, end, net, peak (MiB), allocs, frees")
# every figure is exact to the byte, not only in MiB
for p in P["list"]:
    v = p["devices"][0]
    eq((v["start_bytes"] % M, v["end_bytes"] % M, v["peak_bytes"] % M, v["net_bytes"], sum(c["bytes"] for c in v["peak_categories"])),
       (0, 0, 0, v["end_bytes"] - v["start_bytes"], v["peak_bytes"]), "exact bytes of " + p["label"])
cats = [(p["label"], [(c["category"], c["bytes"] // M, c["count"]) for c in p["devices"][0]["peak_categories"]]) for p in P["list"]]
eq(cats, [("load", [("weights", 64, 1), ("nccl", 2, 1)]),
          ("epoch 1", [("weights", 64, 1), ("activations", 24, 3), ("gradients", 16, 1), ("nccl", 2, 1)]),
          ("forward", [("weights", 64, 1), ("activations", 24, 3), ("nccl", 2, 1)]),
          ("backward", [("weights", 64, 1), ("activations", 24, 3), ("gradients", 16, 1), ("nccl", 2, 1)]),
          ("step", [("weights", 64, 1), ("other", 4, 1), ("nccl", 2, 1)]),
          ("epoch 2", [("weights", 64, 1), ("activations", 24, 3), ("gradients", 16, 1), ("nccl", 2, 1), ("other", 1, 1)]),
          ("forward", [("weights", 64, 1), ("activations", 24, 3), ("nccl", 2, 1), ("other", 1, 1)]),
          ("backward", [("weights", 64, 1), ("activations", 24, 3), ("gradients", 16, 1), ("nccl", 2, 1), ("other", 1, 1)]),
          ("step", [("weights", 64, 1), ("other", 5, 2), ("nccl", 2, 1)]),
          ("eval", [("weights", 64, 1), ("other", 14, 3), ("nccl", 2, 1)]),
          ("teardown", [("weights", 64, 1), ("nccl", 2, 1), ("other", 2, 2)])], "peak by category")
# the peak of epoch 2's step: its workspace, and epoch 1's kept MiB
st = P["list"][8]["devices"][0]
eq([(s["bytes"] // M, s["count"], frame(s["frames"][0])) for s in st["peak_stacks"]],
   [(64, 1, "load_weights phases.c:$(site_line phases.c 'load_weights(void) {')"),
    (4, 1, "step_workspace phases.c:$(site_line phases.c 'step_workspace(void) {')"),
    (2, 1, "ncclFakeBuffer phases.c:$(site_line phases.c 'ncclFakeBuffer(void) {')"),
    (1, 1, "step_keep phases.c:$leak_line")], "stacks at step's peak")
eq((st["peak_stacks_total"], st["peak_stacks_hidden_bytes"]), (4, 0), "all stacks kept")
# each phase's peak is the allocation that reached it; the epochs' peaks are
# their backward's, and the device's own peak is epoch 2's
eq([P["list"][i]["devices"][0]["peak_seq"] for i in (1, 3, 5, 7)],
   [P["list"][3]["devices"][0]["peak_seq"]] * 2 + [P["list"][7]["devices"][0]["peak_seq"]] * 2, "epoch peaks")
eq((devices[0]["peak_bytes"], devices[0]["peak_seq"]), (107 * M, P["list"][5]["devices"][0]["peak_seq"]), "device peak")
# the device levels are the timeline's
tl = d["timeline"]["devices"][0]
eq(tl["max_bytes"], 107 * M, "timeline max")
PY

# text: the same figures, nesting by indent
"$REPORT" --categories cats.txt "$snap" > p.txt || fail "text exit $?"
sed -n '/^PHASES$/,/^TIMELINE$/p' p.txt > phases.txt
grep -q '^PEAK$' p.txt || fail "no PEAK"
expect_eq "$(grep -n '^PEAK$\|^PHASES$\|^TIMELINE$' p.txt | cut -d: -f2 | tr '\n' ' ')" "PEAK PHASES TIMELINE " "section order"
grep -qx 'phase "load": seq 1 to 4 ([0-9.]* s), ended by its "(end)"' phases.txt || fail "load head"
grep -qx '    device 0: peak 69,206,016 bytes (66.0 MiB) at seq 3, net +69,206,016 bytes (66.0 MiB) (0 B -> 66.0 MiB; 2 allocs, 0 frees)' phases.txt || fail "load line"
grep -qx '        at the peak by category: weights 64.0 MiB, nccl 2.0 MiB' phases.txt || fail "load categories"
grep -qx 'phase "epoch 2": seq [0-9]* to [0-9]* ([0-9.]* s), until the next annotation' phases.txt || fail "marker head"
grep -qx '    device 0: peak 112,197,632 bytes (107.0 MiB) at seq [0-9]*, net +1,048,576 bytes (1.0 MiB) (67.0 MiB -> 68.0 MiB; 6 allocs, 5 frees)' phases.txt || fail "epoch 2 line"
grep -qx '      device 0: peak 74,448,896 bytes (71.0 MiB) at seq [0-9]*, net +1,048,576 bytes (1.0 MiB) (67.0 MiB -> 68.0 MiB; 2 allocs, 1 frees)' phases.txt || fail "step line (nested)"
grep -qx '          (1 more stack, 1.0 MiB in 1 allocation)' phases.txt || fail "the kept MiB at step's peak"
grep -qx '        2.0 MiB in 2 allocations: step_keep (phases.c:'"$leak_line"')' phases.txt || fail "the kept MiB of both epochs at teardown"
grep -qx '    device 0: peak 71,303,168 bytes (68.0 MiB) at the start, net -69,206,016 bytes (66.0 MiB) (68.0 MiB -> 2.0 MiB; 0 allocs, 2 frees)' phases.txt || fail "teardown line"
grep -qx 'phase "teardown": seq [0-9]* to [0-9]* ([0-9.]* s), still open at the snapshot' phases.txt || fail "teardown head"

# without --categories: the built-in ones (nccl by function name), the rest "other"
"$REPORT" --json "$snap" > b.json
check_json b.json <<PY
M = $MiB
eq([(c["category"], c["bytes"] // M) for c in d["phases"]["list"][0]["devices"][0]["peak_categories"]],
   [("other", 64), ("nccl", 2)], "built-in categories")
eq(d["phases"]["categories"], ["nccl", "pytorch-caching-allocator", "pytorch-caching-host-allocator", "allocator-cache",
                                "cublas", "cudnn", "cuda-graph-pool", "other"], "built-in names")
PY
# --sections without peak leaves the phases out
"$REPORT" --json --sections leaks "$snap" > s.json
expect_eq "$(jget s.json '"phases" in d')" "False" "--sections leaks"
"$REPORT" --sections leaks "$snap" | grep -q '^PHASES$' && fail "PHASES with --sections leaks"

# a bad categories file: one line naming file:line, exit 2
printf '{\n   broken\n   nope:thing\n}\n' > bad.txt
rc=0; "$REPORT" --categories bad.txt "$snap" > /dev/null 2> err.txt || rc=$?
expect_eq "$rc" 2 "bad categories exit"
expect_eq "$(cat err.txt)" "gpuleak-report: bad.txt:3: expected fun:PATTERN, obj:PATTERN, src:PATTERN[:LINE], '...' or '}'" "bad categories message"
rc=0; "$REPORT" --categories missing.txt "$snap" > /dev/null 2> err.txt || rc=$?
expect_eq "$rc" 2 "missing categories exit"
expect_eq "$(cat err.txt)" "gpuleak-report: missing.txt: cannot open: No such file or directory" "missing categories message"

# the ring wrapped: "epoch 3" began before it; a phase on one device only; a phase with no allocation
"$TPROG/snapgen" phasewrap w.snap
"$REPORT" --json w.snap > w.json || fail "phasewrap exit"
check_json w.json <<PY
M = $MiB
P = d["phases"]
eq((P["wrapped"], P["first_seq"], P["unmatched_ends"]), (True, 101, 0), "wrapped head")
eq([(p["label"], p["depth"], p["start_known"], p["start_seq"], p["end_seq"], p["ended_by"]) for p in P["list"]],
   [("epoch 3", 0, False, 101, 108, "end"), ("forward", 1, True, 102, 106, "end"),
    ("idle", 0, True, 109, 111, "end"), ("empty", 0, True, 112, 113, "end")], "wrapped structure")
eq([(p["label"], [(v["device"], v["start_bytes"] // M, v["peak_bytes"] // M, v["peak_seq"], v["peak_at_start"], v["end_bytes"] // M, v["allocs"], v["frees"])
                  for v in p["devices"]]) for p in P["list"]],
   [("epoch 3", [(0, 9, 29, 103, False, 8, 2, 3)]),
    ("forward", [(0, 13, 29, 103, False, 9, 1, 2)]),
    ("idle", [(0, 8, 8, 109, True, 8, 0, 0), (1, 0, 2, 110, False, 2, 1, 0)]),
    ("empty", [(0, 8, 8, 112, True, 8, 0, 0), (1, 2, 2, 112, True, 2, 0, 0)])], "wrapped figures")
eq([(s["bytes"] // M, s["count"], s["frames"][0]["function"]) for s in P["list"][0]["devices"][0]["peak_stacks"]],
   [(20, 2, "alloc_activations"), (8, 1, "alloc_weights"), (1, 1, "pin_staging")], "composition from before the window")
PY
"$REPORT" w.snap > w.txt
grep -qx '(the history starts at seq 101: annotations before it are gone)' w.txt || fail "wrapped note"
grep -qx 'phase "epoch 3": began before the history (its start was overwritten), shown from seq 101 to 108 ([0-9.]* s), ended by its "(end)"' w.txt ||
    fail "start lost"

# many stacks on several devices (the keyed replay's table grows), in a
# history that frees more than it allocated (inconsistent: levels raised):
# the levels are the timeline's, so no phase peaks above its highest point,
# and each peak's categories and stacks add up to the same composition
"$TPROG/snapgen" bench big.snap 20000 3000 50000
"$REPORT" --json big.snap > big.json || fail "bench exit"
check_json big.json <<'PY'
eq((d["phases"]["inconsistent"], d["timeline"]["inconsistent"]), (True, True), "inconsistent bench history")
P = d["phases"]["list"]
eq(len(P), 50, "bench phases: one per 1,000 events")
top = {t["device"]: t["max_bytes"] for t in d["timeline"]["devices"]}
n = 0
for p in P:
    for v in p["devices"]:
        n += 1
        eq(sum(c["bytes"] for c in v["peak_categories"]),
           sum(s["bytes"] for s in v["peak_stacks"]) + v["peak_stacks_hidden_bytes"], "categories and stacks agree")
        eq(v["peak_bytes"] <= top[v["device"]], True, "under the timeline's top")
        eq(v["peak_bytes"] >= max(v["start_bytes"], v["end_bytes"]), True, "peak at least start and end")
eq(n, 200, "4 devices each")
eq(max(s["peak_stacks_total"] for p in P for s in p["devices"]) > 100, True, "many stacks at a peak")
PY

# 100 phases nested in one another: 64 open at most, the rest counted
"$TPROG/snapgen" phasedeep deep.snap
"$REPORT" --json deep.snap > deep.json || fail "phasedeep exit"
check_json deep.json <<'PY'
P = d["phases"]
eq((len(P["list"]), P["too_deep"], P["unmatched_ends"]), (64, 36, 0), "nesting bound")
eq([(p["label"], p["depth"], p["ended_by"], p["end_seq"]) for p in P["list"]][62:],
   [("level 62", 62, "end", 201 - 62), ("level 63", 63, "end", 201 - 63)], "the deepest shown")
eq({(v["peak_bytes"], v["peak_seq"]) for p in P["list"] for v in p["devices"]}, {(1 << 20, 101)}, "one peak for all")
PY
"$REPORT" deep.snap | grep -qx '(36 phases nested more than 64 deep not shown)' || fail "too deep line"

# no history: no PHASES section, "present": false
"$TPROG/snapgen" nohistory n.snap
"$REPORT" n.snap | grep -q '^PHASES$' && fail "PHASES without history"
"$REPORT" --json n.snap > n.json
expect_eq "$(jget n.json '[d["phases"]["present"], d["phases"]["list"]]')" "[false, []]" "no history"

# the page: one row per phase and device, drawn from the same figures
"$REPORT" --categories cats.txt --html p.html "$snap" || fail "html exit"
python3 - p.html <<'PY' || fail "page data"
import json, re, sys
page = open(sys.argv[1]).read()
data = json.loads(re.search(r'<script type="application/json" id="gl-data">(.*?)</script>', page, re.S).group(1))
rows = data["phases"]["rows"]
assert data["phases"]["total"] == 11 and len(rows) == 11, data["phases"]["total"]
assert [(r["label"], r["depth"], r["bytes"], r["net_bytes"]) for r in rows][:2] == \
    [("load", 0, 66 << 20, 66 << 20), ("epoch 1", 0, 106 << 20, 1 << 20)], rows[:2]
assert rows[0]["categories"] == [["weights", 64 << 20], ["nccl", 2 << 20]], rows[0]["categories"]
assert "phases-table" in page
PY
echo ok
