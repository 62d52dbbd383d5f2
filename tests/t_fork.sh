# fork: the child starts with an empty table and writes its own snapshot
# under its own pid; parent and child each report exactly their own leaks.
source "$ROOT/tests/lib.sh"
traced "$TPROG/scenarios" fork
n=$(ls gpuleak.*.snap | wc -l)
expect_eq "$n" 2 "snapshots (parent and child)"
for s in gpuleak.*.snap; do "$REPORT" --json "$s" >"$s.json"; done
python3 - gpuleak.*.snap.json <<'PY'
import json, sys
docs = [json.load(open(f)) for f in sys.argv[1:]]
got = sorted((len(d["leaks"]), d["leaks"][0]["frames"][0]["function"], d["leaks"][0]["bytes"], d["leaks"][0]["count"])
             for d in docs)
want = sorted([(1, "leak_runtime", 1048576, 1), (1, "leak_async", 131072, 2)])
if got != want:
    sys.exit("FAIL: got %r, expected %r" % (got, want))
pids = {d["snapshot"]["pid"] for d in docs}
if len(pids) != 2:
    sys.exit("FAIL: snapshots do not have two different pids: %r" % pids)
PY
