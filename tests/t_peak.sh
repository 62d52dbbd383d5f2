# The peak and its composition are exact: 4 MiB from peak_a() and 2 x 1 MiB
# from peak_b(), even though usage goes down and up again afterwards.
source "$ROOT/tests/lib.sh"
traced "$TPROG/scenarios" peak
"$REPORT" --json "$(only_snapshot)" >r.json
la=$(site_line scenarios.c 'PEAK-SITE: peak_a')
lb=$(site_line scenarios.c 'PEAK-SITE: peak_b')
check_json r.json <<PY
dev = devices[0]
eq(dev["peak_bytes"], 6291456, "peak bytes")
eq(dev["live_bytes"], 0, "live at exit")
comp = [(c["bytes"], c["count"], frame(c["frames"][0])) for c in dev["peak_composition"]]
eq(comp, [(4194304, 1, "peak_a scenarios.c:$la"), (2097152, 2, "peak_b scenarios.c:$lb")], "composition")
eq(leaks, [], "leaks")
PY
