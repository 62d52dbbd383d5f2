#!/usr/bin/env bash
# A large snapshot (200,000 live allocations over 5,000 stacks): totals
# are exact and the report is produced quickly (symbolization cached).
source "$ROOT/tests/lib.sh"
N=200000 S=5000
"$TPROG/snapgen" many m.snap $N $S
start=$(date +%s%N)
"$REPORT" --json m.snap > m.json || fail "exit $?"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "json report of $N allocations: $ms ms"
want=$(python3 -c "print(sum(256 * (1 + i % 64) for i in range($N)))")
expect_eq "$(jget m.json '[d["leak_summary"]["bytes"], d["leak_summary"]["count"], d["leak_summary"]["groups"], len(d["leaks"])]')" \
    "[$want, $N, $S, $S]" "totals"
expect_eq "$(jget m.json 'all(l["frames"][0]["function"] for l in d["leaks"])')" True "all frames named"
expect_eq "$(jget m.json 'sorted(d["leaks"], key=lambda l: (-l["bytes"], -l["count"], l["stack_id"])) == d["leaks"]')" True "order"
"$REPORT" --top 5 m.snap > m.txt || fail "text exit"
expect_eq "$(grep -c 'not freed at exit' m.txt)" 5 "--top 5"
# --group-depth 1: one group per distinct innermost frame, same totals
"$REPORT" --json --group-depth 1 m.snap > g.json || fail "group-depth exit"
python3 - m.json g.json <<'PY' || fail "--group-depth"
import json, sys
full = json.load(open(sys.argv[1])); g = json.load(open(sys.argv[2]))
tops = {}
for l in full["leaks"]:
    f = l["frames"][0]
    k = (f["function"], f["line"], l["device"])
    tops[k] = tops.get(k, 0) + l["bytes"]
got = {(l["frames"][0]["function"], l["frames"][0]["line"], l["device"]): l["bytes"] for l in g["leaks"]}
assert got == tops, (len(got), len(tops))
assert all(len(l["frames"]) == 1 and l["truncated"] == "group-depth" for l in g["leaks"])
assert g["leak_summary"]["bytes"] == full["leak_summary"]["bytes"]
PY
"$REPORT" --group-depth 1 --top 1 m.snap | grep -q '^    ... (grouped on the innermost 1 frames: --group-depth)$' || fail "group-depth text"
echo ok
