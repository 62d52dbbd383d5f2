#!/usr/bin/env bash
# make bench, section 7's second table: the real PyTorch step of section 7
# (tests/bench/bench_torch_step.py on fakecuda) counted in instructions by
# callgrind, the measure a loaded machine cannot move (issue 46's targets
# are stated in it).  One process per configuration, native and
# cudaMallocAsync x bare, gpuleak default, gpuleak light, under
# `valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes`:
# nothing is counted until the timed steps begin (BENCH_TORCH_CALLGRIND,
# tests/bench/callgrind_window.c), so the import and the warm-up run
# uninstrumented.  Per configuration:
#   program  the instructions of the program's own threads (the main one
#            and PyTorch's autograd worker) over the timed steps, a step;
#   gpuleak  those of gpuleak's own threads (the writer: the live file,
#            periodic work), whose work follows the wall clock, not the
#            steps, so it is given a second of wall time under callgrind
#            (a second of the writer's ticks), apart from the verdicts.
# A thread is gpuleak's when a function of libgpuleak.so is at its root
# (inclusive of all of the thread's instructions).  The window is 200
# steps after 70 of warm-up: past the 64 steps whose views are never paced
# (control/torch_step_pace.h), so steps 71..270 are a long run's, and long
# enough to hold the default's sampled-line steps in their proportion:
# one in 20 views (GPULEAK_STEP_LINES_EVERY=20), ~4 steps a view under
# callgrind here, so 2 or 3 sampled steps and the steps before them that
# turn the recorder on.  PYTHONHASHSEED=0; two
# runs of one configuration agree within ~0.1%.
# Writes $BUILD/bench/bench-torch-instr.json (scripts/bench-verdicts.py).
#
#   scripts/bench-torch-instr.sh [BUILD]
# Knobs: BENCH_TORCH_INSTR_STEPS (200), BENCH_TORCH_INSTR_WARMUP (70);
# BENCH_TORCH_ONLY="bare gl_light" measures only those runs.  Exit 0 with
# one line when torch or valgrind is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench-lib.sh
BUILD=${1:-${BUILD:-build}}
ROOT=$PWD
STEPS=${BENCH_TORCH_INSTR_STEPS:-200}
WARMUP=${BENCH_TORCH_INSTR_WARMUP:-70}
title="7b. real PyTorch step in instructions (callgrind)"
PY=$(scripts/torch-env.sh) || { echo "$title: not measured ($PY)"; exit 0; }
command -v valgrind >/dev/null || { echo "$title: not measured (no valgrind; make bench installs it)"; exit 0; }
WINDOW_LIB=$ROOT/$BUILD/bench/callgrind_window.so
[ -e "$WINDOW_LIB" ] || { echo "bench: $WINDOW_LIB missing; run make bench" >&2; exit 1; }
OUT_JSON=$ROOT/$BUILD/bench/bench-torch-instr.json
bench_torch_env
bench_work gpuleak-bench-torch-instr

runs=(bare gl_default gl_light)
# shellcheck disable=SC2206 # the run names are words
[ -n "${BENCH_TORCH_ONLY:-}" ] && runs=($BENCH_TORCH_ONLY)

# one ALLOC RUN: callgrind's files for it under $work/ALLOC.RUN/
one() {
    local conf=() gl=() dir=$work/$1.$2
    [ "$1" = async ] && conf=(PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync)
    case $2 in
    bare) ;;
    gl_default) gl=("$LAUNCHER" run --quiet --) ;;
    gl_light) gl=(env GPULEAK_MODE=light "$LAUNCHER" run --quiet --) ;;
    *) echo "bench-torch-instr: no run $2" >&2; return 1 ;;
    esac
    mkdir -p "$dir/snaps"
    # gpuleak preloads itself into valgrind, which passes LD_PRELOAD on to
    # the program it runs.
    (cd "$dir" && env "${conf[@]}" PYTHONHASHSEED=0 GPULEAK_OUTPUT="$dir/snaps/" \
        BENCH_TORCH_CALLGRIND="$WINDOW_LIB" "$FCRUN" --devices 1 -- "${gl[@]}" \
        valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes \
        --callgrind-out-file="$dir/cg.out" "$PY" "$STEP" "$STEPS" "$WARMUP" >"$dir/log" 2>&1) ||
        echo "bench-torch-instr: $1 $2 exited $?: $(grep -v '^==' "$dir/log" | tail -1)" >&2
    rm -rf "$dir/snaps"
    # each thread's file: its total, and whether gpuleak's code is its root
    local f
    for f in "$dir"/cg.out*; do
        [ -s "$f" ] || continue
        callgrind_annotate --auto=no --inclusive=yes --threshold=100 "$f" 2>/dev/null |
            python3 -c '
import re, sys
# A function compiled across files (-flto) is listed once per file its
# code came from (watch.c:writer_main, track.c:writer_main): its pieces
# are summed, by name, before the root is looked for.
total, by_name, own_names = 0, {}, set()
for line in sys.stdin:
    m = re.match(r"\s*([0-9,]+) \(\s*([0-9.]+)%\)\s+(.*)", line)
    if not m:
        continue
    n = int(m.group(1).replace(",", ""))
    if "PROGRAM TOTALS" in m.group(3):
        total = n
        continue
    where = m.group(3).split(" [")[0]
    name = where.rsplit(":", 1)[-1]
    by_name[name] = by_name.get(name, 0) + n
    if "/libgpuleak.so]" in m.group(3):
        own_names.add(name)
own = total and any(by_name[f] >= 0.99 * total for f in own_names)
print(total, "gpuleak" if own else "program")' | sed "s/^/$1.$2 /" >>"$RAW"
    done
    local us
    us=$(sed -n 's/^RESULT us_per_step=\([0-9.]*\).*/\1/p' "$dir/log")
    echo "$1.$2 window_us $(awk -v u="${us:-0}" -v n="$STEPS" 'BEGIN { printf "%.0f", u * n }')" >>"$RAW"
}

echo "bench: 7b real PyTorch step under callgrind: ${#runs[@]} runs x native/async, $STEPS steps" >&2
for run in "${runs[@]}"; do
    for alloc in native async; do one $alloc "$run"; done
done

mkdir -p "$(dirname "$OUT_JSON")"
python3 - "$RAW" "$OUT_JSON" "$STEPS" "$WARMUP" "$title" <<'PY'
import json, sys
raw, out_json, steps, warmup, title = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
conf = {}
for line in open(raw):
    key, a, b = line.split()
    c = conf.setdefault(key, {"program": 0, "gpuleak": 0, "window_us": 0})
    if a == "window_us":
        c["window_us"] = int(b)
    else:
        c[b] += int(a)
names = {"bare": "bare", "gl_default": "gpuleak default", "gl_light": "gpuleak light"}
res = {"steps": steps, "warmup": warmup, "configs": {}}
lines = ["%s: %d steps after %d of warm-up, one process each" % (title, steps, warmup),
         "%-10s %-18s %18s %10s %26s" % ("allocator", "run", "program instr/step", "over bare",
                                          "gpuleak's threads instr/s")]
for alloc in ("native", "async"):
    bare = conf.get(alloc + ".bare", {}).get("program") or None
    for run in ("bare", "gl_default", "gl_light"):
        k = "%s.%s" % (alloc, run)
        c = conf.get(k)
        if c is None:
            continue
        if not c["program"]:
            lines.append("%-10s %-18s %18s" % (alloc, names[run], "no result"))
            continue
        per = c["program"] / steps
        over = None if bare is None or run == "bare" else (c["program"] - bare) / bare
        own = c["gpuleak"] * 1e6 / c["window_us"] if c["window_us"] else None
        res["configs"][k] = {"instr_per_step": per, "over_bare": over, "gpuleak_threads_instr": c["gpuleak"],
                             "gpuleak_threads_instr_per_s": own, "window_us": c["window_us"]}
        lines.append("%-10s %-18s %18s %10s %26s" % (
            alloc, names[run], "{:,.0f}".format(per), "-" if over is None else "%+.2f%%" % (100 * over),
            "-" if run == "bare" or own is None else "{:,.0f}".format(own)))
lines.append("   program: the main thread and PyTorch's autograd worker; gpuleak's threads follow the wall")
lines.append("   clock (a second of them under callgrind) and are not in the verdicts (docs/performance.md)")
text = "\n".join(lines)
print(text)
res["table"] = text
with open(out_json, "w") as fh:
    json.dump(res, fh, indent=1)
PY
