# cudaMallocAsync leaks are their own kind ("pool"), with exact bytes and site.
source "$ROOT/tests/lib.sh"
traced "$TPROG/scenarios" leak-async
"$REPORT" --json "$(only_snapshot)" >r.json
line=$(site_line scenarios.c 'LEAK-SITE: leak_async')
check_json r.json <<PY
eq(len(leaks), 1, "leak groups")
l = leaks[0]
eq((l["bytes"], l["count"], l["kind"], l["device"], l["api"]), (196608, 3, "pool", 0, "cudaMallocAsync"), "leak")
eq(frame(l["frames"][0]), "leak_async scenarios.c:$line", "top frame")
PY
