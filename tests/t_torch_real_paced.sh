# Issue 46: which of PyTorch's optimizer steps get a view
# (control/torch_step_pace.h), on real torch 2.14.1 under fakecuda.
# tests/programs/torch_real_paced.py trains an elementwise AdamW loop, each
# step keeping 4 KiB, fast steps first and then slow ones (a sleep: a step
# waiting on its GPU), and prints torch's own figures after each step.
#  - every7 (GPULEAK_STEP_VIEW_EVERY=7, lines at every step): 204 fast
#    steps; views at steps 1..64 and then 71, 78, ..., 204; the snapshot
#    keeps the first and the last 64 of them, exactly; each kept step's
#    allocated and reserved are torch's at that step, its recorded steps
#    the steps before it (the recorder on since step 1's end), and the
#    verdict by growth is 4,096 bytes a step over views 7 steps apart; the
#    text report says the steps were paced, and step 204 grew 7 x 4 KiB
#    since step 197;
#  - auto (no setting, lines at sampled steps): 1000 fast steps and 5 that
#    work 50 ms of CPU: every kept step at torch's figures; from step 60 on
#    (the last of the first 64 sampled ones) every 20th view sampled, none
#    between, at least one after step 64; all 5 slow steps viewed (a view
#    costs ~20 us of CPU, 1/2500 of such a step); the fast steps after 64
#    that are kept fill fewer than half of the steps they span (one in
#    ~25 here: the view's CPU time at most 1/400 of the thread's CPU time
#    between views);
#  - every1 (GPULEAK_STEP_VIEW_EVERY=1): the same run, every step viewed:
#    the first and steps 142..205.
source "$ROOT/tests/lib.sh"
torch_real_setup
prog=$ROOT/tests/programs/torch_real_paced.py
kept=$(site_line torch_real_paced.py KEPT-LINE)

run_paced() { # DIR FAST SLOW WORK [VAR=value...]
    local dir=$1 fast=$2 slow=$3 work=$4
    shift 4
    mkdir "$dir"
    (cd "$dir" && env "$@" "$FAKECUDA/fakecuda-run" --devices 1 -- "$LAUNCHER" run -- "$PY" "$prog" \
        "$fast" "$slow" "$work" >out.txt 2>err.txt) || fail "$dir: run exited $?: $(tail -3 "$dir/err.txt")"
    if grep -q '^fakecuda: ' "$dir/err.txt"; then fail "$dir: $(grep '^fakecuda: ' "$dir/err.txt")"; fi
    "$REPORT" --json "$dir"/*.snap >"$dir/r.json" || fail "$dir: report --json exited $?"
}
steps() { jget "$1/r.json" '[s["step"] for s in d["torch_steps"]["steps"]]'; }
# every kept step's figures against torch's own at that step: the steps that differ
unlike_torch() {
    python3 - "$1/r.json" "$1/out.txt" <<'PY'
import json, sys
printed = {int(l.split()[1]): (int(l.split()[3]), int(l.split()[5])) for l in open(sys.argv[2]) if l.startswith("step ")}
print([s["step"] for s in json.load(open(sys.argv[1]))["torch_steps"]["steps"]
       if printed.get(s["step"]) != (s["allocated_bytes"], s["reserved_bytes"])])
PY
}

run_paced every7 204 0 0 GPULEAK_STEP_VIEW_EVERY=7
expect_eq "$(steps every7)" "$(python3 -c 'print([1] + list(range(21, 65)) + list(range(71, 205, 7)))')" \
    "every7: the first view and the last 64 (steps 1..64 viewed, then one in 7)"
expect_eq "$(unlike_torch every7)" "[]" "every7: steps whose figures are not torch's"
expect_eq "$(jget every7/r.json 'sorted({s["step"] - s["recorded_steps"] for s in d["torch_steps"]["steps"]})')" "[1]" \
    "every7: each step's recorded steps are the steps before it"
expect_eq "$(jget every7/r.json '[(l["file"].rsplit("/", 1)[-1], l["line"], l["bytes_per_step"], l["from_step"], l["to_step"]) for l in d["leaks_by_growth"]["leaks"]]')" \
    "[[\"torch_real_paced.py\", $kept, 4096, 183, 204]]" "every7: the leak by growth, per step over views 7 steps apart"
"$REPORT" every7/*.snap >every7/r.txt || fail "every7: report exited $?"
grep -qxF "After step 64, steps are viewed at a pace (GPULEAK_STEP_VIEW_EVERY): the numbers skip those not viewed." every7/r.txt ||
    fail "every7: the text report does not say steps were paced: $(sed -n '/^PYTORCH STEPS/,+4p' every7/r.txt)"
alloc204=$(awk '$2 == 204 { print $4 }' every7/out.txt)
grep -qxF "    step 204: allocated $(python3 -c "print(f'{$alloc204:,}')") bytes (836.5 KiB), +28,672 bytes (28.0 KiB) since step 197; reserved 2,097,152 bytes (2.0 MiB)" every7/r.txt ||
    fail "every7: step 204's line: $(grep 'step 204' every7/r.txt)"

torch_real_default_lines
run_paced auto 1000 5 0.05
expect_eq "$(unlike_torch auto)" "[]" "auto: steps whose figures are not torch's"
got=$(python3 - auto/r.json <<'PY'
import json, sys
kept = json.load(open(sys.argv[1]))["torch_steps"]["steps"]
# the views kept from step 60 on (60: the last sampled step of the first 64)
at = [s for s in kept if s["step"] >= 60]
sampled = [k for k, s in enumerate(at) if s["lines_sampled"]]
# the fast steps after 64 viewed: the ring keeps the last 64 views only, so
# they are judged against the steps they span, not against all 936
fast = [s["step"] for s in kept if 64 < s["step"] <= 1000]
print([b - a for a, b in zip(sampled, sampled[1:])], len([k for k in sampled if at[k]["step"] > 64]) >= 1,
      [n for n in range(1001, 1006) if n not in [s["step"] for s in kept]],
      len(fast) >= 2 and 2 * len(fast) < fast[-1] - fast[0] + 1, len(fast), fast[:1] + fast[-1:])
PY
)
case $got in
"[20"*"] True [] True "*) ;;
*) fail "auto: one sampled view in 20 views, one sampled after step 64, the slow steps viewed, fewer than half the fast steps viewed (views, first and last): $got" ;;
esac
run_paced every1 200 5 0.05 GPULEAK_STEP_VIEW_EVERY=1
expect_eq "$(steps every1)" "$(python3 -c 'print([1] + list(range(142, 206)))')" "every1: every step viewed"
expect_eq "$(unlike_torch every1)" "[]" "every1: steps whose figures are not torch's"
