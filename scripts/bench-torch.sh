#!/usr/bin/env bash
# make bench, section 7: what gpuleak costs a real PyTorch training step
# (issue 36).  torch 2.14.1 (scripts/torch-env.sh) on fakecuda's runtime,
# one eager step of tests/bench/bench_torch_step.py, in fourteen
# configurations run as separate processes, interleaved repeat by repeat so
# that the machine's drift falls on all of them alike:
#   allocator  native (PyTorch's caching allocator) | async (cudaMallocAsync)
#   run        bare | gpuleak GPULEAK_TORCH=0 | gpuleak default |
#              gpuleak GPULEAK_STEP_LINES_EVERY=0 (the default without
#              its lines at sampled steps) |
#              gpuleak GPULEAK_TORCH_LINES=start (every tensor's line) |
#              gpuleak light (GPULEAK_MODE=light: stacks sampled by bytes) |
#              PyTorch's own recorder, _record_memory_history(stacks="python")
# Prints a table (median [min..max] us per step, % over bare, ns per tensor)
# with a verdict per target, and writes $BUILD/bench/bench-torch.json.
# Then prices gpuleak's lines at sampled steps (GPULEAK_STEP_LINES_EVERY)
# within one process (BENCH_TORCH_SAMPLED in bench_torch_step.py), which a
# loaded machine disturbs far less than the difference of two processes.
#
#   scripts/bench-torch.sh [BUILD]
# Knobs: BENCH_TORCH_RUNS (5) repeats, BENCH_TORCH_STEPS (200) timed steps
# per process; BENCH_QUICK=1 for a smoke run; BENCH_TORCH_ONLY="bare
# gl_light" (run names, see runs= below) measures only those;
# BENCH_TORCH_CLOCK=cpu compares the processes' CPU time per step instead of
# the wall clock (steadier on a machine loaded by other jobs).  Exit 0 with one line when
# torch cannot be set up (the rest of make bench still stands).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench-lib.sh
BUILD=${1:-${BUILD:-build}}
ROOT=$PWD
RUNS=${BENCH_TORCH_RUNS:-5}
STEPS=${BENCH_TORCH_STEPS:-200}
if [ -n "${BENCH_QUICK:-}" ]; then RUNS=${BENCH_TORCH_RUNS:-2} STEPS=${BENCH_TORCH_STEPS:-50}; fi
PY=$(scripts/torch-env.sh) || { echo "7. real PyTorch step: not measured ($PY)"; exit 0; }
OUT_JSON=$ROOT/$BUILD/bench/bench-torch.json
bench_torch_env

bench_work gpuleak-bench-torch

# one ALLOC RUN: one process's RESULT line, recorded under "ALLOC.RUN".
# (In the "lines" run with cudaMallocAsync the lines are gpuleak's own, from
# its hooks: PyTorch records nothing there.)
one() {
    local conf=() cmd=()
    [ "$1" = async ] && conf=(PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync)
    case $2 in
    bare) cmd=("$FCRUN" --devices 1 -- "$PY") ;;
    recorder) cmd=("$FCRUN" --devices 1 -- env BENCH_TORCH_RECORD=1 "$PY") ;;
    gl_torch0) cmd=(env GPULEAK_TORCH=0 "$FCRUN" --devices 1 -- "$LAUNCHER" run --quiet -- "$PY") ;;
    gl_default) cmd=("$FCRUN" --devices 1 -- "$LAUNCHER" run --quiet -- "$PY") ;;
    gl_unsampled) cmd=(env GPULEAK_STEP_LINES_EVERY=0 "$FCRUN" --devices 1 -- "$LAUNCHER" run --quiet -- "$PY") ;;
    gl_lines) cmd=(env GPULEAK_TORCH_LINES=start "$FCRUN" --devices 1 -- "$LAUNCHER" run --quiet -- "$PY") ;;
    gl_light) cmd=(env GPULEAK_MODE=light "$FCRUN" --devices 1 -- "$LAUNCHER" run --quiet -- "$PY") ;;
    esac
    local out
    mkdir -p "$work/snaps" # gpuleak run refuses an output directory that does not exist
    out=$(cd "$work" && env "${conf[@]}" GPULEAK_OUTPUT="$work/snaps/" "${cmd[@]}" "$STEP" "$STEPS" 2>&1) || true
    if grep -q '^RESULT' <<<"$out"; then
        echo "$1.$2 $(grep '^RESULT' <<<"$out")" >>"$RAW"
    elif grep -q 'does not yet support recordHistory' <<<"$out"; then
        echo "$1.$2 REFUSED" >>"$RAW"  # PyTorch's recorder needs its native allocator
    else
        echo "bench-torch: $1 $2 gave no result: $(tail -1 <<<"$out")" >&2
    fi
    rm -rf "$work/snaps"
}

runs=(bare gl_torch0 gl_unsampled gl_default gl_lines gl_light recorder)
# shellcheck disable=SC2206 # the run names are words
[ -n "${BENCH_TORCH_ONLY:-}" ] && runs=($BENCH_TORCH_ONLY)
echo "bench: 7 real PyTorch step: ${#runs[@]} runs x native/async, $RUNS repeats of $STEPS steps" >&2
for r in $(seq "$RUNS"); do
    # rotate the order each repeat: no configuration always runs first
    for i in "${!runs[@]}"; do
        run=${runs[$(( (i + r) % ${#runs[@]} ))]}
        for alloc in native async; do one $alloc "$run"; done
    done
done

mkdir -p "$(dirname "$OUT_JSON")"
python3 - "$RAW" "$OUT_JSON" "$RUNS" "$STEPS" "${BENCH_TORCH_CLOCK:-wall}" <<'PY'
import json, re, statistics, sys
raw, out_json, runs, steps = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
metric = "cpu_us_per_step" if sys.argv[5] == "cpu" else "us_per_step"
us, tensors, refused = {}, {}, set()
for line in open(raw):
    key, rest = line.split(" ", 1)
    if rest.strip() == "REFUSED":
        refused.add(key)
        continue
    m = dict(re.findall(r"(\w+)=([0-9.]+)", rest))
    us.setdefault(key, []).append(float(m[metric]))
    if float(m["tensors_per_step"]) > 0:
        tensors.setdefault(key.split(".")[0], []).append(float(m["tensors_per_step"]))
med = lambda k: statistics.median(us[k]) if us.get(k) else None
seen_runs = {k.split(".", 1)[1] for k in list(us) + list(refused)}
# cudaMallocAsync keeps no allocation counts: the same model makes the
# same tensors as with the native allocator
tps = statistics.median(tensors["native"]) if tensors.get("native") else None
names = {"bare": "bare", "gl_torch0": "gpuleak, GPULEAK_TORCH=0", "gl_unsampled": "default, no sampled lines", "gl_default": "gpuleak default",
         "gl_lines": "gpuleak, every tensor's line", "gl_light": "gpuleak light",
         "recorder": "PyTorch's recorder alone"}
lines, res = [], {"runs": runs, "steps": steps, "clock": metric, "tensors_per_step": tps, "configs": {}}
P = lines.append
P("7. real PyTorch step (torch 2.14.1 on fakecuda: %d runs x %d steps; an elementwise model with autograd" % (runs, steps))
P("   and Adam, %s tensors a step, Python depth ~20; kernels are no-ops, so a step is CPU dispatch only)" %
  ("%.0f" % tps if tps else "?"))
P("%-10s %-26s %24s %10s %12s" % ("allocator", "run", "us per step" if metric == "us_per_step" else "CPU us per step",
                                   "over bare", "ns / tensor"))
def over(alloc, run):
    b, v = med(alloc + ".bare"), med("%s.%s" % (alloc, run))
    return None if b is None or v is None else (v - b) / b, None if b is None or v is None or not tps else (v - b) * 1000 / tps
for alloc in ("native", "async"):
    for run in ("bare", "gl_torch0", "gl_unsampled", "gl_default", "gl_lines", "gl_light", "recorder"):
        k = "%s.%s" % (alloc, run)
        if k not in refused and not us.get(k) and run not in seen_runs:
            continue  # not measured (BENCH_TORCH_ONLY)
        if k in refused and not us.get(k):
            P("%-10s %-26s %s" % (alloc, names[run], "refused by PyTorch: cudaMallocAsync has no recordHistory"))
            continue
        if not us.get(k):
            P("%-10s %-26s %24s" % (alloc, names[run], "no result"))
            continue
        pct, per = over(alloc, run)
        P("%-10s %-26s %24s %10s %12s" % (alloc, names[run],
          "%.0f [%.0f..%.0f]" % (med(k), min(us[k]), max(us[k])),
          "-" if run == "bare" else "%+.1f%%" % (100 * pct), "-" if run == "bare" else "%.0f" % per))
        res["configs"][k] = {"us_median": med(k), "us_min": min(us[k]), "us_max": max(us[k]),
                             "over_bare": pct, "ns_per_tensor": per}
def verdict(ok):
    return "-" if ok is None else "met" if ok else "MISSED"
nat, _ = over("native", "gl_default")
asy, _ = over("async", "gl_default")
# gpuleak's cheapest way to every tensor's line: PyTorch's recorder in its
# "state" mode (native), or its own hooks (cudaMallocAsync)
cands = [v for v in (over("native", "gl_lines")[1], over("async", "gl_lines")[1]) if v is not None]
gl_t = min(cands) if cands else None
_, rec_t = over("native", "recorder")
P("   targets (issue 36): native, gpuleak default <= 2%% over bare: %s; cudaMallocAsync <= 5%%: %s;" % (
  verdict(None if nat is None else nat <= 0.02), verdict(None if asy is None else asy <= 0.05)))
lig, _ = over("async", "gl_light")
P("   light, cudaMallocAsync <= 0.5%%: %s (GPULEAK_MODE=light, stacks sampled by bytes)" % (
  verdict(None if lig is None else lig <= 0.005)))
P("   every tensor's line, gpuleak's cheapest way, <= half of PyTorch's recorder per tensor (%s vs %s ns): %s" % (
  "?" if gl_t is None else "%.0f" % gl_t, "?" if rec_t is None else "%.0f" % rec_t,
  verdict(None if gl_t is None or rec_t is None else gl_t <= rec_t / 2)))
P("   (the spread between processes is the machine's: compare medians, and only within this run)")
text = "\n".join(lines)
print(text)
res["table"] = text
with open(out_json, "w") as fh:
    json.dump(res, fh, indent=1)
PY

# Sampled lines priced in one process: K=4, so that many periods are timed;
# a period's extra over K is the cost a step at that K.
if [ -z "${BENCH_TORCH_ONLY:-}" ] || [[ " $BENCH_TORCH_ONLY " == *" gl_default "* ]]; then
    mkdir -p "$work/snaps"
    line=$(cd "$work" && GPULEAK_OUTPUT="$work/snaps/" GPULEAK_STEP_LINES_EVERY=4 BENCH_TORCH_SAMPLED=4 \
        "$FCRUN" --devices 1 -- "$LAUNCHER" run --quiet -- "$PY" "$STEP" "$((STEPS * 2))" 2>&1 | grep '^SAMPLED') || true
    rm -rf "$work/snaps"
    pct=$(sed -n 's/.*period_pct=\([-0-9.]*\).*/\1/p' <<<"$line")
    if [ -n "$pct" ]; then
        echo "   lines at sampled steps, native, one process, K=4: a sampled period +$pct% of a step (${line#SAMPLED })"
        awk -v p="$pct" 'BEGIN { printf "   so at the default K=20: %+.2f%% a step, on top of the default without them\n", p / 20 }'
    else
        echo "   lines at sampled steps: no result"
    fi
fi
