# gpuleak's clock keeps time with CLOCK_MONOTONIC (interpose/base/clock.h):
# tests/programs/clock_marks makes three annotations 30 ms and 200 ms apart
# and reads CLOCK_MONOTONIC right before and right after each, so each gap
# between two marks has a shortest and a longest value on that clock,
# however long a loaded machine kept the program off the CPU.  The gaps
# between the marks' times in the exit snapshot (gpuleak's clock: the
# kernel's, then from 10 ms on the TSC fitted to it, where the clocksource
# is tsc) must lie within those bounds, to 100 us.  A line whose slope were
# off by 1% would miss by 2 ms on the 200 ms gap; a switch that jumped would
# miss on the 30 ms one.  The same with GPULEAK_CLOCK=kernel, which never
# leaves the kernel's clock.
source "$ROOT/tests/lib.sh"
for clock in auto kernel; do
    mkdir "$clock"
    out=$(GPULEAK_CLOCK=$clock GPULEAK_OUTPUT="$PWD/$clock/" traced "$TPROG/clock_marks") ||
        fail "clock_marks ($clock): $?"
    snaps=("$clock"/*.snap)
    [ ${#snaps[@]} = 1 ] && [ -f "${snaps[0]}" ] || fail "$clock: expected one snapshot, got: ${snaps[*]}"
    "$REPORT" --json "${snaps[0]}" > "$clock.json" || fail "$clock: report: $?"
    GAPS="$out" json_assert "$clock.json" '' <<'PY'
import os
prog = dict(kv.split("=") for kv in os.environ["GAPS"].split())
bounds = [tuple(int(x) for x in prog[k].split(",")) for k in ("b_a", "c_b")]
marks = {m["label"]: m["time_ns"] for m in d["timeline"]["marks"] if m["type"] == "annotation"}
eq(sorted(marks), ["a", "b", "c"], "the marks")
ours = [marks["b"] - marks["a"], marks["c"] - marks["b"]]
for what, o, (lo, hi) in zip(("b - a", "c - b"), ours, bounds):
    if not lo - 100000 <= o <= hi + 100000:
        raise SystemExit(f"{what}: {o} ns on gpuleak's clock, {lo}..{hi} ns on CLOCK_MONOTONIC")
print("gaps on gpuleak's clock", ours, "on CLOCK_MONOTONIC", bounds)
PY
done
