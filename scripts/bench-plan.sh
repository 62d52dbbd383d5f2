#!/usr/bin/env bash
# make bench, section 9: what `gpuleak plan` costs (issue 44, item 7).
# tests/programs/plan_gpt.py (a GPT: 4 layers, d_model 256, seq 128, vocab
# 8192, AdamW) at batch 16 for 3 optimizer steps, as
#   bare   a plain CPU run of the script (--device cpu --steps 3)
#   plan   gpuleak plan --gpu h100-sxm-80gb --steps 3 --sweep b=16
# run alternately (the machine's drift falls on both alike), wall seconds
# and max RSS (/usr/bin/time: the largest process of the tree); and the
# host memory of one plan whose device peak is near the card's 80 GB: the
# same script at d_model 8704 (3.8 billion parameters built on the device,
# one AdamW step), its peak reserved from plan's JSON.
# Prints a table in the bench's style and writes $BUILD/bench/bench-plan.json.
#
#   scripts/bench-plan.sh [BUILD]
# Knobs: BENCH_PLAN_RUNS (3) runs of each; BENCH_QUICK=1: 1 run.  Exit 0
# with one line when torch cannot be set up (the rest of make bench still
# stands).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench-lib.sh
BUILD=${1:-${BUILD:-build}}
ROOT=$PWD
RUNS=${BENCH_PLAN_RUNS:-3}
if [ -n "${BENCH_QUICK:-}" ]; then RUNS=${BENCH_PLAN_RUNS:-1}; fi
PY=$(scripts/torch-env.sh) || { echo "9. gpuleak plan: not measured ($PY)"; exit 0; }
[ -x /usr/bin/time ] || { echo "9. gpuleak plan: not measured (no /usr/bin/time: scripts/bench.sh --setup)"; exit 0; }
LAUNCHER=$ROOT/$BUILD/bin/gpuleak
GPT=$ROOT/tests/programs/plan_gpt.py
OUT_JSON=$ROOT/$BUILD/bench/bench-plan.json
BIG=(--d-model 8704 --layers 4 --heads 68)
bench_torch_env

bench_work gpuleak-bench-plan

# measure KEY CMD...: one run's "KEY WALL_S MAXRSS_KB" (nothing if it failed)
measure() {
    local key=$1
    shift
    if (cd "$work" && /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" >"$work/out.txt" 2>"$work/err.txt"); then
        echo "$key $(cat "$work/time.txt")" >>"$RAW"
    else
        echo "bench-plan: $key failed: $(tail -1 "$work/err.txt")" >&2
    fi
}

echo "bench: 9 gpuleak plan: $RUNS x (bare CPU run, plan) of plan_gpt.py batch 16, 3 steps; one 80 GB plan" >&2
for r in $(seq "$RUNS"); do
    order=(bare plan)
    [ $((r % 2)) = 0 ] && order=(plan bare)
    for run in "${order[@]}"; do
        case $run in
        bare) measure bare "$PY" "$GPT" --batch 16 --device cpu --steps 3 ;;
        plan) measure plan "$LAUNCHER" plan --gpu h100-sxm-80gb --steps 3 --sweep b=16 -- "$PY" "$GPT" --batch '{b}' --steps 3 ;;
        esac
    done
done
measure big "$LAUNCHER" plan --gpu h100-sxm-80gb --steps 1 --json "$work/big.json" --sweep b=1 \
    -- "$PY" "$GPT" --batch '{b}' --steps 1 "${BIG[@]}"

mkdir -p "$(dirname "$OUT_JSON")"
python3 - "$RAW" "$work/big.json" "$OUT_JSON" "$RUNS" "${BIG[*]}" <<'PY'
import json, statistics, sys
raw, big_json, out_json, runs, big_args = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
vals = {}
for line in open(raw):
    key, wall, rss = line.split()
    vals.setdefault(key, []).append((float(wall), int(rss) / 1024))
try:
    big = json.load(open(big_json))
except (OSError, ValueError):
    big = None

def mmm(key, i, fmt):
    xs = [v[i] for v in vals.get(key, [])]
    if not xs:
        return "-", None
    if len(xs) == 1:
        return fmt % xs[0], xs[0]
    return "%s [%s..%s]" % (fmt % statistics.median(xs), fmt % min(xs), fmt % max(xs)), statistics.median(xs)

def pratio():
    """Median of per-run ratios (run i of each was taken a minute apart)."""
    a, b = vals.get("plan", []), vals.get("bare", [])
    if not a or len(a) != len(b):
        return None
    return statistics.median(x[0] / y[0] for x, y in zip(a, b))

lines, res = [], {"runs": runs, "rows": {}}
P = lines.append
P("9. gpuleak plan (issue 44, item 7): tests/programs/plan_gpt.py, a GPT (4 layers, d_model 256, seq 128, vocab 8192,")
P("   AdamW) at batch 16, 3 steps; %d runs each, median [min..max]; max RSS: the largest process of the tree" % runs)
P("%-50s %24s %24s" % ("run", "wall s", "max RSS MiB"))
for key, label in (("bare", "bare CPU run (--device cpu --steps 3)"),
                   ("plan", "gpuleak plan --gpu h100-sxm-80gb --sweep b=16")):
    (ws, w), (rs, r) = mmm(key, 0, "%.1f"), mmm(key, 1, "%.0f")
    P("%-50s %24s %24s" % (label, ws, rs))
    res["rows"][key] = {"wall_s": w, "max_rss_mib": r, "raw": vals.get(key, [])}
ratio = pratio()
res["plan_over_bare"] = ratio
P("   plan / bare wall time: %s (median of per-run ratios; the plan's kernels compute nothing, the CPU run's compute)" %
  ("-" if ratio is None else "%.2f" % ratio))
(ws, w), (rs, r) = mmm("big", 0, "%.1f"), mmm("big", 1, "%.0f")
run = big["runs"][0] if big and big.get("runs") else None
if run and run.get("peak_reserved"):
    total = big["gpu"]["total_bytes"]
    P("   an 80 GB plan (%s, 1 AdamW step, h100-sxm-80gb):" % big_args)
    P("   peak reserved %s MiB (%.1f GB) of the card's %s MiB," % (
      "{:,}".format(run["peak_reserved"] >> 20), run["peak_reserved"] / 1e9, "{:,}".format(total >> 20)))
    P("   device used %s MiB, %s; in %s MiB of host memory (max RSS), %s s" % (
      "{:,}".format(run["device_used"] >> 20), "fits" if run["fits"] else "OOM" if run["oom"] else "does not fit", rs, ws))
    res["big"] = {"args": big_args, "peak_reserved": run["peak_reserved"], "peak_allocated": run["peak_allocated"],
                  "device_used": run["device_used"], "total_bytes": total, "max_rss_mib": r, "wall_s": w}
else:
    P("   an 80 GB plan (%s): no result" % big_args)
    res["big"] = None
text = "\n".join(lines)
print(text)
res["table"] = text
with open(out_json, "w") as fh:
    json.dump(res, fh, indent=1)
PY
