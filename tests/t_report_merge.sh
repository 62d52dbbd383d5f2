#!/usr/bin/env bash
# merge: three ranks of one job on two hosts (gen_ranks): totals per rank,
# host and device, the rank with the largest peak, and the stack live on
# only one rank (tie_a on rank 2).
source "$ROOT/tests/lib.sh"
mkdir r && "$TPROG/snapgen" ranks r
"$REPORT" --json merge r/r0.snap r/r1.snap r/r2.snap > m.json || fail "exit $?"
python3 - m.json <<'PY' || fail "merge JSON"
import json, sys
d = json.load(open(sys.argv[1]))
MiB = 1 << 20
assert d["mode"] == "merge"
assert [(r["rank"], r["host"], r["live_bytes"], r["peak_bytes"], r["peak_device"]) for r in d["ranks"]] == \
    [(0, "nodeA", MiB, 10 * MiB, 0), (1, "nodeA", MiB, 12 * MiB, 1), (2, "nodeB", 3 * MiB, 30 * MiB, 0)], d["ranks"]
assert [(h["host"], h["snapshots"], h["live_bytes"], h["peak_bytes_sum"]) for h in d["hosts"]] == \
    [("nodeA", 2, 2 * MiB, 22 * MiB), ("nodeB", 1, 3 * MiB, 30 * MiB)], d["hosts"]
assert [(x["host"], x["device"], x["live_bytes"]) for x in d["devices"]] == \
    [("nodeA", 0, MiB), ("nodeA", 1, MiB), ("nodeB", 0, 3 * MiB)], d["devices"]
lp = d["largest_peak"]
assert (lp["rank"], lp["host"], lp["device"], lp["peak_bytes"]) == (2, "nodeB", 0, 30 * MiB), lp
p = d["partial_stacks"]
assert [(x["frames"][0]["function"], x["bytes"], x["present"]) for x in p] == [("tie_a", [0, 0, 2 * MiB], 1)], p
PY
"$REPORT" merge r/r0.snap r/r1.snap r/r2.snap > m.txt
grep -qx 'rank 2 (pid 200, host nodeB): 31,457,280 bytes (30.0 MiB) on device 0 at 0.01 s' m.txt || fail "largest peak"
grep -qx '2,097,152 bytes (2.0 MiB) of device memory, live on 1 of 3 ranks' m.txt || fail "partial stack"
grep -qx '    not on: rank 0, rank 1' m.txt || fail "partial stack ranks"
grep -qx 'nodeA: 2 ranks (0,1), live 2,097,152 bytes (2.0 MiB), peaks summed 22.0 MiB' m.txt || fail "host line"
# Several snapshots per process and any order (walk-through defects 2-4):
# merge keeps one snapshot per process, its latest (the exit one, else the
# highest index), names the others in one note on stderr, and shows the
# processes in rank order (then host, pid) whatever the order given; a
# process with no rank (GL_SNAP_F_NO_RANK) comes after the ranks, named
# "no rank (pid P)", "rank": null in JSON and the page's data.
mkdir k && "$TPROG/snapgen" rankset k
given=(k/r3.1.snap k/tool.snap k/r0.0.snap k/r0.1.snap k/r1.1.snap k/r1.0.snap k/r2.1.snap)
"$REPORT" merge "${given[@]}" > k.txt 2> k.err || fail "merge: exit $?"
expect_eq "$(cat k.err)" "gpuleak-report: note: merge takes one snapshot per process, its latest; left out: k/r0.0.snap, k/r1.0.snap" "the note"
cat > want.txt <<'EOT'
==== gpuleak merge: 5 snapshots ====

BY RANK
rank 0 (pid 100, host nodeB, k/r0.1.snap): live 2,097,152 bytes (2.0 MiB) (outside caches and suppressions 2.0 MiB), peak 12.0 MiB on device 0
rank 1 (pid 101, host nodeB, k/r1.1.snap): live 2,097,152 bytes (2.0 MiB) (outside caches and suppressions 2.0 MiB), peak 12.0 MiB on device 0
rank 2 (pid 102, host nodeB, k/r2.1.snap): live 1,048,576 bytes (1.0 MiB) (outside caches and suppressions 1.0 MiB), peak 10.0 MiB on device 0
rank 3 (pid 103, host nodeA, k/r3.1.snap): live 1,048,576 bytes (1.0 MiB) (outside caches and suppressions 1.0 MiB), peak 10.0 MiB on device 0
no rank (pid 300, host nodeA, k/tool.snap): live 4,194,304 bytes (4.0 MiB) (outside caches and suppressions 4.0 MiB), peak 4.0 MiB on device 0

BY HOST
nodeB: 3 ranks (0,1,2), live 5,242,880 bytes (5.0 MiB), peaks summed 34.0 MiB
nodeA: 2 ranks (3,no rank (pid 300)), live 5,242,880 bytes (5.0 MiB), peaks summed 14.0 MiB
EOT
head -12 k.txt | diff -u want.txt - || fail "merge of several snapshots per rank, out of order"
grep -qx '    not on: no rank (pid 300)' k.txt || fail "the process with no rank in a site's ranks"
"$REPORT" --json merge "${given[@]}" > k.json 2>/dev/null || fail "merge --json: exit $?"
expect_eq "$(jget k.json '[[s["path"] for s in d["snapshots"]], [(r["rank"], r["pid"], r["live_bytes"]) for r in d["ranks"]]]')" \
    '[["k/r0.1.snap", "k/r1.1.snap", "k/r2.1.snap", "k/r3.1.snap", "k/tool.snap"], [[0, 100, 2097152], [1, 101, 2097152], [2, 102, 1048576], [3, 103, 1048576], [null, 300, 4194304]]]' \
    "JSON merge: one snapshot per process, in rank order"
"$REPORT" --html k.html merge "${given[@]}" 2>/dev/null || fail "merge --html: exit $?"
python3 - k.html <<'PY' || fail "the page's ranks"
import json, re, sys
s = open(sys.argv[1], encoding="utf-8").read()
p = json.loads(re.search(r'<script type="application/json" id="gl-data">(.*?)</script>', s, re.S).group(1))
got = [(r["rank"], r["pid"]) for r in p["merge"]["ranks"]]
assert got == [(0, 100), (1, 101), (2, 102), (3, 103), (None, 300)], got
# the live and leaked bytes are largest on the process without a rank
got = [(b["measure"], b["rank"], b["pid"]) for b in p["merge"]["imbalance"]]
assert got == [("peak_bytes", 0, 100), ("live_bytes", None, 300), ("leaked_bytes", None, 300)], got
PY
"$REPORT" --html tool.html k/tool.snap || fail "--html of the process with no rank: exit $?"
python3 - tool.html <<'PY' || fail "the page of the process with no rank"
import json, re, sys
s = open(sys.argv[1], encoding="utf-8").read()
p = json.loads(re.search(r'<script type="application/json" id="gl-data">(.*?)</script>', s, re.S).group(1))
assert (p["snapshot"]["rank"], p["snapshot"]["pid"]) == (None, 300), p["snapshot"]
PY
# drawn in Chromium (when there is one): the process with no rank named so
if [ -z "$GL_SAN" ] && { command -v chromium >/dev/null || command -v chromium-browser >/dev/null || [ -n "${CHROMIUM:-}" ]; }; then
    python3 "$ROOT/tests/browser/eval_page.py" k.html drawn.json "[document.querySelector('header .meta').textContent.split(' \u00b7 ')[0],
        Array.from(document.querySelectorAll('svg.ranks text.xtick')).map(function (t) { return t.textContent; }).join('|'),
        document.querySelector('#imbalance-live .l').textContent]" || fail "the merge page in Chromium"
    expect_eq "$(jget drawn.json '[d["errors"], d["value"]]')" \
        '[[], ["ranks 0, 1, 2, 3, no rank (pid 300)", "rank 0|rank 1|rank 2|rank 3|no rank (pid 300)", "live imbalance: no rank (pid 300) highest, 4.0 MiB against a mean of 2.0 MiB (largest / mean)"]]' \
        "the merge page as drawn"
fi
# one process alone: "no rank" in the summary, null in JSON
"$REPORT" k/tool.snap | grep -qx 'process:  pid 300, ppid 1, no rank, host nodeA' || fail "no rank in the summary"
expect_eq "$(jget <("$REPORT" --json k/tool.snap) 'd["snapshot"]["rank"]')" None "no rank in the snapshot's JSON"
echo ok
