# cuMemAlloc_v2 leaks in a program that links libcuda directly.
source "$ROOT/tests/lib.sh"
traced "$TPROG/driver_scenarios" leak
"$REPORT" --json "$(only_snapshot)" >r.json
line=$(site_line driver_scenarios.c 'LEAK-SITE: leak_driver')
check_json r.json <<PY
eq(len(leaks), 1, "leak groups")
l = leaks[0]
eq((l["bytes"], l["count"], l["kind"], l["device"], l["api"]), (786432, 3, "device", 0, "cuMemAlloc_v2"), "leak")
eq(frame(l["frames"][0]), "leak_driver driver_scenarios.c:$line", "top frame")
eq(devices[0]["alloc_count"], 4, "allocations")
eq(devices[0]["free_count"], 1, "frees")
PY
