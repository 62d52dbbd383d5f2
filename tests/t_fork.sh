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

# What the parent leaked until a cudaDeviceReset before the fork is the
# parent's: the child's snapshot has no teardown leaks, nor live ones of the
# parent's.
mkdir reset && (cd reset && traced "$TPROG/scenarios" fork-reset) || fail "fork-reset"
for s in reset/gpuleak.*.snap; do "$REPORT" --json "$s" >"$s.json"; done
python3 - reset/gpuleak.*.snap.json <<'PY'
import json, sys
docs = [json.load(open(f)) for f in sys.argv[1:]]
got = sorted(([(l["frames"][0]["function"], l["bytes"]) for l in d["leaks"]],
              [(g["frames"][0]["function"], g["bytes"], g["teardown"]) for g in d["teardown_leaks"]["groups"]])
             for d in docs)
want = sorted([([], [("leak_runtime", 1048576, "cudaDeviceReset")]),
               ([("leak_async", 131072)], [])])
if got != want:
    sys.exit("FAIL: got %r, expected %r" % (got, want))
PY
