#!/usr/bin/env bash
# A snapshot with every allocation freed: the LEAKS section says so, the
# JSON leak list is empty, the peak is still reported.
source "$ROOT/tests/lib.sh"
"$TPROG/snapgen" noleak n.snap
"$REPORT" n.snap > out.txt || fail "exit $?"
expect_eq "$(sed -n '/^LEAKS$/{n;p}' out.txt)" "No leaks: all 10 allocations were freed." "no-leak line"
grep -qx '    total: 0 bytes in 0 allocations' out.txt || fail "summary"
grep -qx 'device 0: peak 2,097,152 bytes (2.0 MiB) at seq 4, 0.04 s after start' out.txt || fail "peak"
"$REPORT" --json n.snap > out.json || fail "json exit $?"
expect_eq "$(jget out.json 'd["leaks"]')" "[]" "leaks"
expect_eq "$(jget out.json '[d["leak_summary"]["bytes"], d["leak_summary"]["count"], d["leak_summary"]["by_kind"]]')" "[0, 0, []]" "summary"
expect_eq "$(jget out.json 'd["devices"][0]["peak_composition"][0]["frames"][0]["function"]')" "alloc_weights" "peak frames"
echo ok
