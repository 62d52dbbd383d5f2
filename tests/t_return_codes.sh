# Return codes and out-parameters of failing and odd calls are identical with
# and without the interposer; the failures are counted, not recorded as live.
source "$ROOT/tests/lib.sh"
fc "$TPROG/scenarios" errors >bare.txt
traced "$TPROG/scenarios" errors >traced.txt
diff -u bare.txt traced.txt || fail "runtime return codes differ under the interposer"
grep -q '^oom 2$' bare.txt || fail "fakecuda did not report out-of-memory: $(cat bare.txt)"
fc "$TPROG/driver_scenarios" errors >dbare.txt
traced "$TPROG/driver_scenarios" errors >dtraced.txt
diff -u dbare.txt dtraced.txt || fail "driver return codes differ under the interposer"
for s in gpuleak.*.snap; do "$REPORT" --json "$s" >"$s.json"; done
# Final snapshots: the runtime program had 2 OOMs and 3 bad frees (bogus,
# bogus async, double); the driver program 1 OOM and 2 bad frees.
python3 - gpuleak.*.snap.json <<'PY'
import json, sys
docs = [json.load(open(f)) for f in sys.argv[1:]]
seen = sorted((d["devices"][0]["failed_count"], d["devices"][0]["unknown_free_count"], len(d["leaks"]))
              for d in docs if d["snapshot"]["final"])
want = sorted([(2, 3, 0), (1, 2, 0)])
if seen != want:
    sys.exit("FAIL: failures/unknown frees/leaks: got %r, expected %r" % (seen, want))
PY
