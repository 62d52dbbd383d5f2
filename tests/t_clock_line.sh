# gpuleak's clock keeps time with CLOCK_MONOTONIC (interpose/base/clock.h):
# tests/programs/clock_marks times three annotations 30 ms and 200 ms apart
# on CLOCK_MONOTONIC itself, and the gaps between the marks' times in the
# exit snapshot (gpuleak's clock: the kernel's, then from 10 ms on the TSC
# fitted to it, where the clocksource is tsc) must agree to within 1 ms.  A
# line whose slope were off by 0.5% would miss by 1 ms on the 200 ms gap; a
# switch that jumped would miss on the 30 ms one.  The same with
# GPULEAK_CLOCK=kernel, which never leaves the kernel's clock.
source "$ROOT/tests/lib.sh"
for clock in auto kernel; do
    mkdir "$clock"
    out=$(GPULEAK_CLOCK=$clock GPULEAK_OUTPUT="$PWD/$clock/" traced "$TPROG/clock_marks") ||
        fail "clock_marks ($clock): $?"
    snaps=("$clock"/*.snap)
    [ ${#snaps[@]} = 1 ] && [ -f "${snaps[0]}" ] || fail "$clock: expected one snapshot, got: ${snaps[*]}"
    "$REPORT" --json "${snaps[0]}" > "$clock.json" || fail "$clock: report: $?"
    b_a=${out#b_a=}
    b_a=${b_a%% *}
    c_b=${out##*c_b=}
    GAPS="$b_a $c_b" json_assert "$clock.json" '' <<'PY'
import os
prog = [int(x) for x in os.environ["GAPS"].split()]
marks = {m["label"]: m["time_ns"] for m in d["timeline"]["marks"] if m["type"] == "annotation"}
eq(sorted(marks), ["a", "b", "c"], "the marks")
ours = [marks["b"] - marks["a"], marks["c"] - marks["b"]]
for what, o, p in zip(("b - a", "c - b"), ours, prog):
    if abs(o - p) > 1000000:
        raise SystemExit(f"{what}: {o} ns on gpuleak's clock, {p} ns on CLOCK_MONOTONIC")
print("gaps on gpuleak's clock", ours, "on CLOCK_MONOTONIC", prog)
PY
done
