# A program that frees everything: no leaks, exact counters, and a peak equal
# to the largest simultaneous use (3 MiB + 17 bytes + 4096 bytes).
source "$ROOT/tests/lib.sh"
traced "$TPROG/scenarios" balanced
snap=$(only_snapshot)
"$REPORT" --json "$snap" >r.json
check_json r.json <<'PY'
eq(leaks, [], "leaks")
eq(d["leak_summary"]["bytes"], 0, "summary bytes")
dev = devices[0]
eq((dev["live_bytes"], dev["live_count"], dev["alloc_count"], dev["free_count"]), (0, 0, 20, 20), "counters")
eq(dev["peak_bytes"], 3 * 1048576 + 17 + 4096, "peak")
eq((dev["failed_count"], dev["unknown_free_count"]), (0, 0), "failures")
PY
"$REPORT" "$snap" | grep -qi "no leaks" || fail "text report does not say there are no leaks"
