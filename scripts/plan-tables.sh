#!/usr/bin/env bash
# The GPT and ResNet tables of docs/plan.md ("Two models, five batch
# sizes"; issue 44, item 5): tests/programs/plan_gpt.py and plan_resnet.py
# at batch 1, 2, 4, 8, 16, 2 AdamW steps on an h100-sxm-80gb profile.  Per
# batch: `gpuleak plan`'s peak allocated, peak reserved (PyTorch's own
# counters) and predicted device use, then, in a run of its own under
# fakecuda-run, MemTracker's peak (torch.distributed._tools.mem_tracker)
# and peak allocated - MemTracker.  Kernels compute nothing, so the bytes
# are the same at every run.  About 20 runs of PyTorch (5-10 min on 2
# busy cores).
#
#   scripts/plan-tables.sh                   # prints the tables (markdown)
#   scripts/plan-tables.sh --update docs/plan.md
#                   # replaces what is between its two plan-tables markers
#
# BUILD (default build) names the build tree; needs `make all` there and
# the torch venv (scripts/torch-env.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/${BUILD:-build}
update=
case "${1:-}" in
    --update) update=${2:?--update wants a file} ;;
    "") ;;
    *) echo "usage: scripts/plan-tables.sh [--update FILE]" >&2; exit 2 ;;
esac
py=$("$root/scripts/torch-env.sh") || { echo "plan-tables: $py" >&2; exit 1; }
export LD_LIBRARY_PATH=${CUDA_HOME:-/usr/local/cuda}/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
BATCHES=(1 2 4 8 16)
GPU=h100-sxm-80gb

# model: the plan's JSON in $work/model.json, MemTracker's peaks in $work/model.tracker
measure() {
    local model=$1 b
    echo "plan-tables: $model" >&2
    "$build/bin/gpuleak" plan --gpu $GPU --steps 0 --json "$work/$model.json" \
        --sweep "batch=$(IFS=,; echo "${BATCHES[*]}")" \
        -- "$py" "$root/tests/programs/plan_$model.py" --batch '{batch}' --steps 2 >/dev/null
    for b in "${BATCHES[@]}"; do
        echo "plan-tables: $model batch $b, MemTracker" >&2
        "$build/fakecuda/fakecuda-run" --gpu $GPU --drop-copies --devices 1 -- \
            "$py" "$root/tests/programs/plan_$model.py" --batch "$b" --steps 2 --memtracker |
            awk -v b="$b" '$1 == "memtracker" { print b, $2 }' >>"$work/$model.tracker"
    done
}

table() { # model title
    python3 - "$work/$1.json" "$work/$1.tracker" "$2" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))
tracker = dict(map(int, line.split()) for line in open(sys.argv[2]))
mib = lambda n: "%.1f MiB" % (n / 1048576)
print("%s, 2 AdamW steps, %s:\n" % (sys.argv[3], plan["gpu"]["profile"]))
print("| batch | peak allocated | peak reserved | predicted used | MemTracker | allocated - MemTracker |")
print("|---:|---:|---:|---:|---:|---:|")
for r in plan["runs"]:
    b = r["values"]["batch"]
    a, t = r["peak_allocated"], tracker[b]
    print("| %d | %s (%s) | %s (%s) | %s | %s (%s) | %s (%s) |" % (
        b, format(a, ","), mib(a), format(r["peak_reserved"], ","), mib(r["peak_reserved"]),
        mib(r["device_used"]), format(t, ","), mib(t), format(a - t, ","), mib(a - t)))
print()
PY
}

measure gpt
measure resnet
{
    table gpt "GPT (tests/programs/plan_gpt.py: 4 layers, d_model 256, seq 128, vocab 8192; fp32)"
    table resnet "ResNet-18-shaped (tests/programs/plan_resnet.py: 224x224, 1000 classes; cuDNN on)"
} >"$work/tables.md"

if [ -z "$update" ]; then
    cat "$work/tables.md"
    exit 0
fi
python3 - "$update" "$work/tables.md" <<'PY'
import os, sys
path, tables = sys.argv[1], open(sys.argv[2]).read()
begin, end = "<!-- plan-tables begin: scripts/plan-tables.sh --update -->\n", "<!-- plan-tables end -->\n"
text = open(path).read()
if text.count(begin) != 1 or text.count(end) != 1:
    sys.exit("plan-tables: %s needs one line of each: %s%s" % (path, begin, end))
head, rest = text.split(begin)
_, tail = rest.split(end)
tmp = path + ".tmp"
with open(tmp, "w") as f:
    f.write(head + begin + "\n" + tables + end + tail)
os.replace(tmp, path)
PY
