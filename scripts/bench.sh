#!/usr/bin/env bash
# make bench: what gpuleak costs, side by side with the unwinding floor and
# heaptrack, measured in one run so that the ratios hold on a noisy machine.
# Prints one table and writes the same figures to $BUILD/bench/bench.json.
# Every figure is explained in docs/performance.md.
#
#   scripts/bench.sh --setup      install heaptrack if missing (idempotent)
#   scripts/bench.sh [BUILD]      run everything (BUILD defaults to build)
#
# Knobs (environment): BENCH_RUNS (5) runs per cell, median reported;
# BENCH_N (100000) pairs per run; BENCH_QUICK=1 for a fast smoke run;
# BENCH_ONLY=8 (or 1,8 ...) runs and prints only those sections
# (bench.json then holds only them).  Last, issue 46's targets, each with
# its verdict, from this run's figures (scripts/bench-verdicts.py).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench-lib.sh

if [ "${1:-}" = "--setup" ]; then
    # heaptrack: the reference; time: /usr/bin/time for the reporter's max RSS
    missing=()
    command -v heaptrack >/dev/null || missing+=(heaptrack)
    command -v valgrind >/dev/null || missing+=(valgrind) # section 8's instruction counts
    [ -x /usr/bin/time ] || missing+=(time)
    if [ ${#missing[@]} -gt 0 ]; then
        scripts/apt-install.sh "bench: installing ${missing[*]}" "${missing[@]}"
    fi
    # section 7's torch (its one line on failure: section 7 then says so)
    scripts/torch-env.sh >/dev/null || true
    exit 0
fi

BUILD=${1:-${BUILD:-build}}
ROOT=$PWD
RUNS=${BENCH_RUNS:-5}
N=${BENCH_N:-100000}
DEPTHS=(8 32 64 128)
THREADS=(1 2 4 8 16)
SNAP_SIZES=(100000 1000000)
SNAP_STACKS=10000
SNAP_RUNS=${BENCH_SNAP_RUNS:-3}
MEM_N=1000000
MEM_STACKS=100000
if [ -n "${BENCH_QUICK:-}" ]; then
    RUNS=${BENCH_RUNS:-3} N=${BENCH_N:-20000} SNAP_SIZES=(100000) SNAP_RUNS=1 MEM_N=100000 MEM_STACKS=10000
fi

BIN=$ROOT/$BUILD/bench/bench_work
LIB=$ROOT/$BUILD/lib/libgpuleak.so
REPORT=$ROOT/$BUILD/bin/gpuleak-report
FAKECUDA=$ROOT/$BUILD/fakecuda
FASTCUDA=$ROOT/$BUILD/bench/fastcuda
OUT_JSON=$ROOT/$BUILD/bench/bench.json
TORCH_JSON=$ROOT/$BUILD/bench/bench-torch.json
INSTR_JSON=$ROOT/$BUILD/bench/bench-torch-instr.json
bench_start=$(date +%s) # figures written before this are an earlier run's
for f in "$BIN" "$LIB" "$REPORT" "$FASTCUDA/libcudart.so.13"; do
    [ -e "$f" ] || { echo "bench: $f missing; run make bench" >&2; exit 1; }
done
HEAPTRACK=$(command -v heaptrack || true)

bench_work gpuleak-bench
start_s=$SECONDS
# want N: section N is to run (BENCH_ONLY unset, or it names N)
want() { [ -z "${BENCH_ONLY:-}" ] || [[ ",${BENCH_ONLY// /}," == *",$1,"* ]]; }
note() { printf 'bench: [%3ds] %s\n' $((SECONDS - start_s)) "$*" >&2; }

# record KEY VALUE: one measurement (several per key make min/median/max)
record() { echo "$1 $2" >>"$RAW"; }
# result KEY FIELD < "RESULT a=1 b=2": the field's value
field() { sed -n "s/.*RESULT.* $2=\([^ ]*\).*/\1/p; s/.*RESULT $2=\([^ ]*\).*/\1/p" | head -1; }

bare() { LD_LIBRARY_PATH=$1 "${@:2}"; }
traced() { # LIBDIR DEPTH CMD...: under libgpuleak, snapshots into $work/snaps
    mkdir -p "$work/snaps"
    LD_PRELOAD=$LIB GPULEAK_OUTPUT=$work/snaps/ GPULEAK_DEPTH=$2 LD_LIBRARY_PATH=$1 "${@:3}"
}

# Each section below is guarded by `want N`; its body is left at the top
# level's indentation so that the guards do not rewrite it.
# ---- 1. cost per tracked event ---------------------------------------------
if want 1; then
MISS_N=$((N / 50)); [ "$MISS_N" -lt 200 ] && MISS_N=200
note "1/6 cost per event: depths ${DEPTHS[*]}, $RUNS runs of $N pairs"
for run in $(seq "$RUNS"); do
    for d in "${DEPTHS[@]}"; do
        for api in cuda async; do
            floor=floor; [ $api = async ] && floor=floor-async
            record "pair.$api.$d.bare" "$(bare "$FAKECUDA" "$BIN" pairs $api "$d" "$N" | field - ns_per_pair)"
            record "pair.$api.$d.floor" "$(bare "$FAKECUDA" "$BIN" pairs $floor "$d" "$N" | field - ns_per_pair)"
            record "pair.$api.$d.gpuleak" "$(traced "$FAKECUDA" "$d" "$BIN" pairs $api "$d" "$N" | field - ns_per_pair)"
        done
        # The stack cache (docs/performance.md "Stack cache"): a pair whose
        # stack misses every time (GPULEAK_STACK_CACHE=miss: the recording
        # walk, nothing reused), and the walk before the cache (off:
        # unw_backtrace every time).
        # A recording walk costs ~1000x a replay: N/50 pairs are plenty.
        record "pair.cuda.$d.miss" "$(GPULEAK_STACK_CACHE=miss traced "$FAKECUDA" "$d" "$BIN" pairs cuda "$d" "$MISS_N" | field - ns_per_pair)"
        record "pair.cuda.$d.off" "$(GPULEAK_STACK_CACHE=off traced "$FAKECUDA" "$d" "$BIN" pairs cuda "$d" "$N" | field - ns_per_pair)"
        if [ "$run" = 1 ]; then
            # Hit rate, from the check mode's counts (an untimed run).
            GPULEAK_STACK_CHECK=$work/check.$d traced "$FAKECUDA" "$d" "$BIN" pairs cuda "$d" "$N" >/dev/null
            record "pair.cuda.$d.hitrate" "$(awk '/^stats /{for(i=2;i<=NF;i++){split($i,kv,"=");s[kv[1]]+=kv[2]}}
                END{w=s["hits"]+s["misses"]+s["uncached"]+s["plain"]; if (w) printf "%.4f", s["hits"]/w}' "$work/check.$d")"
            grep -q '^mismatch' "$work/check.$d" && note "stack check: MISMATCH at depth $d ($(grep -c '^mismatch' "$work/check.$d"))"
        fi
        record "pair.malloc.$d.bare" "$(bare "$FAKECUDA" "$BIN" pairs malloc "$d" "$N" | field - ns_per_pair)"
        if [ -n "$HEAPTRACK" ]; then
            # heaptrack's interpreter process needs ~100,000 events before it
            # keeps pace (until then the program blocks on its pipe): warm up.
            out=$(cd "$work" && BENCH_WARMUP=100000 LD_LIBRARY_PATH=$FAKECUDA "$HEAPTRACK" -o "$work/ht.$d.$run" \
                  "$BIN" pairs malloc "$d" "$N" 2>&1 || true)
            record "pair.malloc.$d.heaptrack" "$(echo "$out" | field - ns_per_pair)"
            rm -f "$work"/ht.*
        fi
    done
    rm -rf "$work/snaps"
done
fi # 1

# ---- 2. threads ---------------------------------------------------------------
if want 2; then
TN=$((N / 2))
note "2/6 threads: ${THREADS[*]} x $TN pairs each at depth 32, $RUNS runs"
for run in $(seq "$RUNS"); do
    for t in "${THREADS[@]}"; do
        record "thr.$t.bare" "$(bare "$FASTCUDA" "$BIN" pairs cuda 32 "$TN" "$t" | field - pairs_per_s)"
        record "thr.$t.gpuleak" "$(traced "$FASTCUDA" 32 "$BIN" pairs cuda 32 "$TN" "$t" | field - pairs_per_s)"
        # addresses reused per thread, as CUDA's pools and the caching
        # allocators hand a loop back what it just freed (fastcuda.c)
        record "thr.$t.reuse" "$(FASTCUDA_REUSE=1 traced "$FASTCUDA" 32 "$BIN" pairs cuda 32 "$TN" "$t" | field - pairs_per_s)"
        record "thrfc.$t.gpuleak" "$(traced "$FAKECUDA" 32 "$BIN" pairs cuda 32 "$TN" "$t" | field - pairs_per_s)"
    done
    rm -rf "$work/snaps"
done
fi # 2

# ---- 3. snapshot, 4. reporter -----------------------------------------------------
measure_report() { # KEY SNAPSHOT [--json]
    /usr/bin/time -f "%e %M" -o "$work/time" "$REPORT" "${@:3}" --output "$work/report.out" "$2" \
        >/dev/null 2>"$work/report.err" || true
    read -r secs kib <"$work/time" || true
    record "$1.s" "$secs"
    record "$1.mib" "$((kib / 1024))"
    rm -f "$work/report.out"
}
snapshot_case() { # NAME NLIVE ENTRIES
    local name=$1 nlive=$2 entries=$3
    for run in $(seq "$SNAP_RUNS"); do
        rm -rf "$work/snaps" && mkdir -p "$work/snaps"
        out=$(LD_PRELOAD=$LIB GPULEAK_OUTPUT=$work/snaps/ GPULEAK_MAX_ENTRIES=$entries \
              LD_LIBRARY_PATH=$FASTCUDA "$BIN" snap "$nlive" "$SNAP_STACKS" "$work/snaps")
        for f in write_ms size blocked_max_ms quiet_max_ms signal_ms; do
            record "snap.$name.$f" "$(echo "$out" | field - $f)"
        done
        measure_report "rep.$name.text" "$work/snaps/api.snap"
        measure_report "rep.$name.json" "$work/snaps/api.snap" --json
    done
    rm -rf "$work/snaps"
}
if want 3 || want 4; then
for nlive in "${SNAP_SIZES[@]}"; do
    note "3/6 + 4/6 snapshot and reporter: $nlive live over $SNAP_STACKS stacks, $SNAP_RUNS runs"
    snapshot_case "$nlive" "$nlive" 65536
done
big=${SNAP_SIZES[-1]}
note "3/6 + 4/6 snapshot and reporter: $big live, $big history events"
snapshot_case "$big.hist" "$big" "$big"
if [ -x scripts/bench-report.sh ] && [ -x "$BUILD/tests/snapgen" ] && [ -z "${BENCH_QUICK:-}" ]; then
    note "4/6 reporter on the synthetic snapshot (scripts/bench-report.sh)"
    scripts/bench-report.sh "$BUILD" >"$work/bench-report.txt" 2>&1 || true
    # "text    1.23 s   456 MiB max RSS   78 MiB output"
    while read -r name secs _ mib _; do
        case $name in text | json) record "rep.synthetic.$name.s" "$secs"; record "rep.synthetic.$name.mib" "$mib" ;; esac
    done <"$work/bench-report.txt"
    head -1 "$work/bench-report.txt" | sed 's/^/bench: synthetic /' >&2
fi
# PyTorch's view with 100,000 distinct tensor lines (issue 34, defect 8:
# quadratic in lines before, 3.4 s): target 1 s, text and JSON.
if [ -x "$BUILD/tests/snapgen" ] && [ -z "${BENCH_QUICK:-}" ] &&
    "$BUILD/tests/snapgen" torchlines "$work/torchlines.snap" 100000; then
    note "4/6 reporter on 100,000 distinct PyTorch tensor lines (snapgen torchlines)"
    measure_report rep.torchlines.text "$work/torchlines.snap"
    measure_report rep.torchlines.json "$work/torchlines.snap" --json
    rm -f "$work/torchlines.snap"
fi
# diff and --html of five PyTorch step snapshots (issue 45, item 9: ~10 s
# before, target 1 s): the reporter as it is, and the same with every
# snapshot looking its pcs up itself (GPULEAK_REPORT_SYMBOL_CACHE=snapshot,
# what it did before the lookups were shared), interleaved run by run.
series_case() {
    local py series
    py=$(scripts/torch-env.sh 2>/dev/null) || { note "4/6 PyTorch series: no torch ($py)"; return 0; }
    mkdir -p "$work/series"
    (cd "$work/series" && LD_LIBRARY_PATH=${CUDA_HOME:-/usr/local/cuda}/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
        "$FAKECUDA/fakecuda-run" --devices 1 -- "$ROOT/$BUILD/bin/gpuleak" run --quiet -- \
        "$py" "$ROOT/tests/bench/bench_torch_series.py" >"$work/series.out" 2>&1) ||
        { note "4/6 PyTorch series: the run failed: $(tail -1 "$work/series.out")"; return 0; }
    series=("$work"/series/step{0,1,2,3,4}.snap)
    record rep.series.kb "$(($(cat "${series[@]}" | wc -c) / 5 / 1024))"
    note "4/6 reporter: diff and --html of 5 PyTorch step snapshots, $RUNS runs"
    for run in $(seq "$RUNS"); do
        for how in shared snapshot; do
            local env=()
            [ $how = snapshot ] && env=(GPULEAK_REPORT_SYMBOL_CACHE=snapshot)
            for mode in diff html; do
                local args=(diff "${series[@]}")
                [ $mode = html ] && args=(--html "$work/series.html" "${series[@]}")
                env "${env[@]}" /usr/bin/time -f "%e %U %S" -o "$work/time" "$REPORT" "${args[@]}" \
                    >/dev/null 2>"$work/report.err" || true
                read -r secs user sys <"$work/time" || true
                record "rep.series.$mode.$how.s" "$secs"
                record "rep.series.$mode.$how.cpu" "$(echo "$user $sys" | awk '{print $1 + $2}')"
            done
        done
    done
    rm -rf "$work/series" "$work/series.html"
}
if [ -z "${BENCH_QUICK:-}" ]; then series_case; fi
fi # 3, 4

# ---- 5. memory ----------------------------------------------------------------
if want 5; then
note "5/6 memory: $MEM_N live from one stack; $MEM_STACKS stacks"
for run in 1 2 3; do
    record mem.alloc.bare "$(bare "$FASTCUDA" "$BIN" mem "$MEM_N" 1 | field - rss_delta)"
    record mem.alloc.gpuleak "$(traced "$FASTCUDA" 64 "$BIN" mem "$MEM_N" 1 | field - rss_delta)"
    record mem.stacks.one "$(traced "$FASTCUDA" 64 "$BIN" mem "$MEM_STACKS" 1 | field - rss_delta)"
    record mem.stacks.many "$(traced "$FASTCUDA" 64 "$BIN" mem "$MEM_STACKS" "$MEM_STACKS" | field - rss_delta)"
done
fi # 5

# ---- 6. Python -----------------------------------------------------------------
PY=$(command -v python3 || true)
if want 6 && [ -n "$PY" ] && grep -q GPULEAK_PYTHON interpose/base/config.c 2>/dev/null; then
    PN=$((N / 5))
    note "6/6 Python: $PN pairs at Python depth 20, $RUNS runs"
    for run in $(seq "$RUNS"); do
        py=("$PY" tests/bench/bench_py.py "$FAKECUDA/libcudart.so.13" "$PN" 20)
        record py.bare "$(bare "$FAKECUDA" "${py[@]}" | field - ns_per_pair)"
        record py.native "$(GPULEAK_PYTHON=0 traced "$FAKECUDA" 64 "${py[@]}" | field - ns_per_pair)"
        record py.python "$(traced "$FAKECUDA" 64 "${py[@]}" | field - ns_per_pair)"
        rm -rf "$work/snaps"
    done
    # A PyTorch-like training step (tests/bench/bench_step.py): 50
    # cudaMallocAsync/cudaFreeAsync per step among 75 ops of Python work.
    SN=$((N / 500)); [ "$SN" -lt 40 ] && SN=40
    note "6/6 Python: $SN PyTorch-like steps (50 allocations each), $RUNS runs"
    for run in $(seq "$RUNS"); do
        st=("$PY" tests/bench/bench_step.py "$FAKECUDA/libcudart.so.13" "$SN" 20 25)
        out=$(bare "$FAKECUDA" "${st[@]}")
        record step.bare "$(echo "$out" | field - ns_per_step)"
        record step.bare.alloc "$(echo "$out" | field - ns_alloc_per_step)"
        record step.opwork "$(echo "$out" | field - ns_per_op_work)"
        out=$(GPULEAK_PYTHON=0 traced "$FAKECUDA" 64 "${st[@]}")
        record step.native "$(echo "$out" | field - ns_per_step)"
        record step.native.alloc "$(echo "$out" | field - ns_alloc_per_step)"
        out=$(traced "$FAKECUDA" 64 "${st[@]}")
        record step.python "$(echo "$out" | field - ns_per_step)"
        record step.python.alloc "$(echo "$out" | field - ns_alloc_per_step)"
        rm -rf "$work/snaps"
    done
fi

# ---- 8. attach ----------------------------------------------------------------
# One long-running process (bench_work serve) times its own loop of
# cudaMalloc+cudaFree pairs before any attach, while attached and after
# the detach; the wall time of `gpuleak attach` and `gpuleak detach` (gdb's
# start included) is taken around the commands.  A separate bare process
# is the reference.  Each phase is the best of ATT_LOOPS loops: on a
# shared machine one loop in three is often slowed by another job, and the
# question is what the program's own code costs, not the neighbours.
ATT_N=$N
ATT_RUNS=$RUNS
ATT_LOOPS=3
ATT_IR_N=20000
# serve_start: bench_work serve in the background, commands on fd 4
serve_start() {
    rm -f "$work/att.cmd" "$work/att.out"
    mkfifo "$work/att.cmd"
    LD_LIBRARY_PATH=$FAKECUDA "$BIN" serve 32 "$ATT_N" <"$work/att.cmd" >"$work/att.out" 2>"$work/att.err" &
    att_pid=$!
    exec 4>"$work/att.cmd"
    serve_wait 1 '^ready$'
}
# serve_wait COUNT REGEX: until the output has COUNT lines matching REGEX
serve_wait() {
    for _ in $(seq 600); do
        [ "$(grep -c "$2" "$work/att.out" || true)" -ge "$1" ] && return 0
        sleep 0.05
    done
    note "8 attach: bench_work serve did not answer: $(cat "$work/att.err")"
    return 1
}
# serve_pairs: one measured loop; its ns per pair (the loop's RESULT line
# is the one after those already there: no state kept, it runs in $(...))
serve_pairs() {
    local k
    k=$(($(grep -c '^RESULT ' "$work/att.out" || true) + 1))
    echo pairs >&4
    serve_wait "$k" '^RESULT ' && grep '^RESULT ' "$work/att.out" | sed -n "${k}p" | field - ns_per_pair
}
# serve_best: the fastest of ATT_LOOPS loops
serve_best() {
    for _ in $(seq "$ATT_LOOPS"); do serve_pairs; done | sort -g | head -1
}
serve_stop() { echo quit >&4; exec 4>&-; wait "$att_pid" || true; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
if want 8; then
    ATT_WHY=
    command -v gdb >/dev/null || ATT_WHY="no gdb"
    [ -n "$ATT_WHY" ] || note "8 attach: $ATT_RUNS runs: attach, detach, $ATT_N pairs at depth 32 before/while/after"
    for run in $(seq "$ATT_RUNS"); do
        [ -z "$ATT_WHY" ] || break
        # the reference: the same loops in a process never attached to
        serve_start || break
        record att.bare "$(serve_best)"
        serve_stop
        serve_start || break
        record att.before "$(serve_best)"
        mkdir -p "$work/attsnaps"
        t0=$(now_ms)
        if ! "$ROOT/$BUILD/bin/gpuleak" attach --output "$work/attsnaps/" "$att_pid" 2>"$work/att.attach"; then
            ATT_WHY="attach failed: $(tail -1 "$work/att.attach")"
            serve_stop
            break
        fi
        record att.attach_ms "$(($(now_ms) - t0))"
        record att.during "$(serve_best)"
        t0=$(now_ms)
        "$ROOT/$BUILD/bin/gpuleak" detach "$att_pid" >/dev/null 2>"$work/att.detach" ||
            ATT_WHY="detach failed: $(tail -1 "$work/att.detach")"
        record att.detach_ms "$(($(now_ms) - t0))"
        record att.after "$(serve_best)"
        serve_stop
        rm -rf "$work/attsnaps"
    done
    [ -z "$ATT_WHY" ] || note "8 attach: $ATT_WHY"
    echo "$ATT_WHY" >"$work/att.why"
    # The pair in instructions (callgrind), which the machine's load cannot
    # move: one process, N pairs before an attach, attached, after the
    # detach; attach and detach in-process on a thread of their own, as
    # gdb's call starts one (gdb cannot trace a process under valgrind).
    if command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null; then
        note "8 attach: instructions per pair (callgrind, $ATT_IR_N pairs a phase)"
        mkdir -p "$work/irsnaps"
        if LD_LIBRARY_PATH=$FAKECUDA valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" \
            "$BIN" attach-ir "$LIB" "$ATT_IR_N" "$work/irsnaps" >/dev/null 2>"$work/cg.err"; then
            # "40,459,675 (19.59%)  .../bench_work.c:pairs_before_attach [...]"
            callgrind_annotate --inclusive=yes "$work/cg.out" 2>/dev/null |
                awk -v n="$ATT_IR_N" '$3 ~ /:pairs_(before_attach|while_attached|after_detach)$/ {
                    gsub(",", "", $1); sub(/.*:pairs_/, "", $3); printf "att.ir_%s %.1f\n", $3, $1 / n }' >>"$RAW"
        else
            note "8 attach: callgrind run failed: $(tail -1 "$work/cg.err")"
        fi
    fi
fi
note "done; formatting"

python3 - "$RAW" "$OUT_JSON" "$(nproc)" "$RUNS" "$N" "$MEM_N" "$MEM_STACKS" "$SNAP_STACKS" \
    "${BENCH_ONLY:-}" "$(cat "$work/att.why" 2>/dev/null)" <<'PY'
import json, os, statistics, sys, time
raw, out_json, ncpu, runs, n, mem_n, mem_stacks, snap_stacks, only, att_why = sys.argv[1:]
ncpu, mem_n, mem_stacks = int(ncpu), int(mem_n), int(mem_stacks)
vals = {}
for line in open(raw):
    k, _, v = line.strip().partition(" ")
    try:
        vals.setdefault(k, []).append(float(v))
    except ValueError:
        pass  # a failed run records nothing usable

def st(k):
    v = vals.get(k)
    if not v:
        return None
    return {"median": statistics.median(v), "min": min(v), "max": max(v), "runs": len(v)}

def med(k):
    s = st(k)
    return s["median"] if s else None

def ratio(a, b):
    return a / b if a is not None and b else None

def pratio(ka, kb):
    """Median of per-run ratios: run i of both was taken minutes apart at
    most, so drift of the machine cancels; ratio of medians as a fallback."""
    a, b = vals.get(ka), vals.get(kb)
    if a and b and len(a) == len(b):
        return statistics.median(x / y for x, y in zip(a, b) if y)
    return ratio(med(ka), med(kb))

def f(x, fmt="%.0f"):
    return "-" if x is None else fmt % x

def mmm(k, fmt="%.0f"):
    s = st(k)
    return "-" if s is None else "%s [%s..%s]" % (fmt % s["median"], fmt % s["min"], fmt % s["max"])

res = {"machine": {"cpus": ncpu}, "runs": int(runs), "pairs_per_run": int(n),
       "time": time.strftime("%Y-%m-%d %H:%M:%S"), "events": {}, "threads": {},
       "snapshot": {}, "reporter": {}, "memory": {}, "python": None}
lines = []
P = lines.append
# Where each section's lines start: BENCH_ONLY keeps only those it names.
starts = []
def begin(section):
    starts.append((section, len(lines)))
P("gpuleak benchmark (%d CPUs; median [min..max] of %s runs; ns per alloc+free pair)" % (ncpu, runs))
P("")
begin(1)
P("1. cost per tracked event (fakecuda; floor = unw_backtrace(D) + bare pair; heaptrack: malloc/free)")
P("%-6s %-5s %16s %18s %18s %16s %18s %8s %8s  %s" % ("api", "depth", "bare", "floor", "gpuleak",
  "malloc bare", "heaptrack", "gl/floor", "gl/heap", "verdict"))
rf32 = pratio("pair.cuda.32.gpuleak", "pair.cuda.32.floor")
def verdict(api, d, rf, rh):
    if api != "cuda" or rf is None:
        return ""
    if d == 32:
        return "floor %s, heap %s" % ("met" if rf <= 1.0 else "MISSED",
                                      "-" if rh is None else "met" if rh <= 0.5 else "MISSED")
    if d in (8, 64) and rf32 is not None:
        return "floor %s (<= %.2f at 32)" % ("met" if rf <= rf32 else "MISSED", rf32)
    return ""
for api in ("cuda", "async"):
    for d in (8, 32, 64, 128):
        k = "pair.%s.%d." % (api, d)
        rf, rh = pratio(k + "gpuleak", k + "floor"), pratio(k + "gpuleak", "pair.malloc.%d.heaptrack" % d)
        P("%-6s %-5d %16s %18s %18s %16s %18s %8s %8s  %s" % (api, d, mmm(k + "bare"), mmm(k + "floor"),
          mmm(k + "gpuleak"), mmm("pair.malloc.%d.bare" % d), mmm("pair.malloc.%d.heaptrack" % d),
          f(rf, "%.2f"), f(rh, "%.2f"), verdict(api, d, rf, rh)))
        res["events"]["%s.%d" % (api, d)] = {
            "bare_ns": st(k + "bare"), "floor_ns": st(k + "floor"), "gpuleak_ns": st(k + "gpuleak"),
            "malloc_bare_ns": st("pair.malloc.%d.bare" % d), "heaptrack_ns": st("pair.malloc.%d.heaptrack" % d),
            "gpuleak_over_floor": rf, "gpuleak_over_heaptrack": rh}
P("   ratios: median of per-run ratios.  targets (issue 21): at depth 32 gl/floor <= 1.0 and gl/heap <= 0.5;")
P("   at depths 8 and 64 gl/floor at most as at 32")
P("")
P("   stack cache (cudaMalloc+cudaFree; hit rate from the check mode's counts; 'miss': every stack misses,")
P("   GPULEAK_STACK_CACHE=miss; 'off': unw_backtrace every time, the walk before the cache)")
P("   %-5s %8s %18s %8s %18s %8s %18s %8s" % ("depth", "hit rate", "gpuleak (cache)", "gl/floor", "miss",
  "miss/fl", "off", "off/fl"))
for d in (8, 32, 64, 128):
    k = "pair.cuda.%d." % d
    hr = med(k + "hitrate")
    P("   %-5d %8s %18s %8s %18s %8s %18s %8s" % (d, "-" if hr is None else "%.2f%%" % (100 * hr),
      mmm(k + "gpuleak"), f(pratio(k + "gpuleak", k + "floor"), "%.2f"), mmm(k + "miss"),
      f(pratio(k + "miss", k + "floor"), "%.2f"), mmm(k + "off"), f(pratio(k + "off", k + "floor"), "%.2f")))
    res["events"]["cuda.%d" % d].update({"stack_cache_hit_rate": hr, "miss_ns": st(k + "miss"),
                                         "off_ns": st(k + "off"),
                                         "miss_over_floor": pratio(k + "miss", k + "floor"),
                                         "off_over_floor": pratio(k + "off", k + "floor")})
P("")
begin(2)
P("2. threads (depth 32; lock-free stand-in runtime; fakecuda column: fakecuda's global lock included)")
P("%-8s %14s %14s %10s %10s %14s %10s %14s" % ("threads", "bare pairs/s", "gpuleak pairs/s", "vs linear",
  "vs cores", "gl, reused", "vs cores", "fakecuda+gl"))
g1, r1 = med("thr.1.gpuleak"), med("thr.1.reuse")
for t in (1, 2, 4, 8, 16):
    g, r = med("thr.%d.gpuleak" % t), med("thr.%d.reuse" % t)
    lin, cores = ratio(g, (g1 or 0) * t), ratio(g, (g1 or 0) * min(t, ncpu))
    rcores = ratio(r, (r1 or 0) * min(t, ncpu))
    P("%-8d %14s %14s %10s %10s %14s %10s %14s" % (t, f(med("thr.%d.bare" % t)), f(g), f(lin, "%.2f"),
      f(cores, "%.2f"), f(r), f(rcores, "%.2f"), f(med("thrfc.%d.gpuleak" % t))))
    res["threads"][str(t)] = {"bare_pairs_per_s": st("thr.%d.bare" % t), "gpuleak_pairs_per_s": st("thr.%d.gpuleak" % t),
                              "gpuleak_reused_pairs_per_s": st("thr.%d.reuse" % t),
                              "fakecuda_gpuleak_pairs_per_s": st("thrfc.%d.gpuleak" % t),
                              "ratio_to_linear": lin, "ratio_to_linear_on_cores": cores,
                              "reused_ratio_to_linear_on_cores": rcores}
P("   'gl, reused': each thread gets back the address it just freed (FASTCUDA_REUSE=1), as CUDA's pools and")
P("   the caching allocators do; otherwise every address is new and a loop's records spread over every shard")
for label, key, one in (("new addresses", "ratio_to_linear_on_cores", g1), ("reused", "reused_ratio_to_linear_on_cores", r1)):
    thr_ok = []
    for t in (2, 4, 8, 16):
        c = res["threads"][str(t)][key]
        thr_ok.append("%d: %s" % (t, "-" if c is None else "met" if c >= 0.9 else "MISSED"))
    two = ratio(med("thr.2.%s" % ("gpuleak" if one is g1 else "reuse")), one)
    P("   targets (issue 21), %s: >= 0.9 of what the cores allow at 2, 4, 8, 16 threads: %s;" % (label, ", ".join(thr_ok)))
    P("      two threads never slower than one: %s (%s x one thread's pairs/s)" %
      ("-" if two is None else "met" if two >= 1.0 else "MISSED", f(two, "%.2f")))
P("   (this machine has %d cores: beyond %d threads 'vs cores' shares them)" % (ncpu, ncpu))
P("")
begin(3)
P("3. snapshot (%s stacks; write = gpuleak_snapshot(); blocked = longest cudaMalloc+cudaFree of an" % snap_stacks)
P("   allocating thread while a SIGUSR1 snapshot was taken; quiet = the same, no snapshot)")
P("%-18s %16s %10s %18s %16s %16s" % ("live allocations", "write ms", "size MiB", "blocked ms",
  "quiet ms", "signal->file ms"))
names = sorted({k.split(".")[1] + ("." + k.split(".")[2] if k.split(".")[2] == "hist" else "")
                for k in vals if k.startswith("snap.")}, key=lambda s: (float(s.split(".")[0]), s))
for nm in names:
    k = "snap.%s." % nm
    size = med(k + "size")
    label = nm.replace(".hist", " +hist")
    P("%-18s %16s %10s %18s %16s %16s" % (label, mmm(k + "write_ms"), f(size and size / 1048576, "%.1f"),
      mmm(k + "blocked_max_ms", "%.2f"), mmm(k + "quiet_max_ms", "%.2f"), mmm(k + "signal_ms")))
    res["snapshot"][nm] = {x: st(k + x) for x in ("write_ms", "size", "blocked_max_ms", "quiet_max_ms", "signal_ms")}
P("   '+hist': history ring of as many events (GPULEAK_MAX_ENTRIES), full.  targets for 1,000,000: write <= 1000 ms, blocked <= 50 ms")
def held(name, key, limit):
    v = med(key)
    return "%s %s" % (name, "-" if v is None else "met" if v <= limit else "MISSED")
big = [nm for nm in names if nm.startswith("1000000")]
if big:
    P("   verdicts: " + ", ".join("%s: %s, %s" % (nm.replace(".hist", " +hist"),
      held("write", "snap.%s.write_ms" % nm, 1000), held("blocked", "snap.%s.blocked_max_ms" % nm, 50)) for nm in big))
P("")
begin(4)
P("4. reporter (all analyses; wall seconds and max RSS MiB)")
P("%-26s %16s %10s %16s %10s" % ("snapshot", "text s", "text MiB", "json s", "json MiB"))
extra = [x for x in ("synthetic", "torchlines") if "rep.%s.text.s" % x in vals]
for nm in names + extra:
    k = "rep.%s." % nm
    label = {"synthetic": "1M/20k stacks/1M ev (snapgen)",
             "torchlines": "100k torch lines (snapgen)"}.get(nm, nm.replace(".hist", " +hist"))
    P("%-26s %16s %10s %16s %10s" % (label, mmm(k + "text.s", "%.2f"), f(med(k + "text.mib")),
      mmm(k + "json.s", "%.2f"), f(med(k + "json.mib"))))
    res["reporter"][nm] = {x: st(k + x) for x in ("text.s", "text.mib", "json.s", "json.mib")}
P("   target on 1,000,000: <= 2 s, <= 1024 MiB; on 100k torch lines: <= 1 s")
if "torchlines" in extra:
    P("   verdict, 100k torch lines: " + ("met" if all(med("rep.torchlines." + x) is not None and
      med("rep.torchlines." + x) <= 1 for x in ("text.s", "json.s")) else "MISSED"))
if "rep.series.diff.shared.s" in vals:
    P("   five PyTorch step snapshots (tests/bench/bench_torch_series.py, %s KB each), wall s [CPU s]:" %
      f(med("rep.series.kb")))
    P("   %-6s %18s %8s %18s %8s %8s" % ("", "shared lookups", "CPU s", "per snapshot", "CPU s", "before/now"))
    for mode in ("diff", "html"):
        k = "rep.series.%s." % mode
        P("   %-6s %18s %8s %18s %8s %8s" % (mode, mmm(k + "shared.s", "%.2f"), f(med(k + "shared.cpu"), "%.2f"),
          mmm(k + "snapshot.s", "%.2f"), f(med(k + "snapshot.cpu"), "%.2f"),
          f(pratio(k + "snapshot.s", k + "shared.s"), "%.1f")))
        res["reporter"]["torch_series_" + mode] = {x: st(k + x) for x in ("shared.s", "shared.cpu", "snapshot.s", "snapshot.cpu")}
    def within(kind):
        return all(med("rep.series.%s.shared.%s" % (m, kind)) is not None and
                   med("rep.series.%s.shared.%s" % (m, kind)) <= 1 for m in ("diff", "html"))
    P("   'per snapshot': each snapshot looks its pcs up itself with libdwfl alone (GPULEAK_REPORT_SYMBOL_CACHE=snapshot),")
    P("   as before issue 45; CPU s = user + sys, what the load of other jobs does not inflate")
    P("   target (issue 45, item 9): diff and html of the five <= 1 s: wall %s, CPU %s (load average %.1f)" % (
      "met" if within("s") else "MISSED", "met" if within("cpu") else "MISSED", os.getloadavg()[0]))
rbig = [nm for nm in names if nm.startswith("1000000")] + (["synthetic"] if "rep.synthetic.text.s" in vals else [])
if rbig:
    P("   verdicts: " + ", ".join("%s: %s" % (nm.replace(".hist", " +hist"), "met" if all(
      med("rep.%s.%s" % (nm, x)) is not None and med("rep.%s.%s" % (nm, x)) <= lim
      for x, lim in (("text.s", 2), ("json.s", 2), ("text.mib", 1024), ("json.mib", 1024))) else "MISSED")
      for nm in rbig))
P("")
ab, ag = med("mem.alloc.bare"), med("mem.alloc.gpuleak")
so, sm = med("mem.stacks.one"), med("mem.stacks.many")
per_alloc = (ag - ab) / mem_n if ag is not None and ab is not None else None
per_stack = (sm - so) / mem_stacks if sm is not None and so is not None else None
begin(5)
P("5. memory (RSS growth)")
P("   per live allocation: %s bytes  (%d live from one stack, minus the bare program's growth; target <= 96: %s)" % (
  f(per_alloc, "%.1f"), mem_n, "-" if per_alloc is None else "met" if per_alloc <= 96 else "MISSED"))
P("   per interned stack:  %s bytes  (%d allocations on %d distinct ~32-frame stacks vs on one)" % (f(per_stack, "%.1f"), mem_stacks, mem_stacks))
res["memory"] = {"bytes_per_live_allocation": per_alloc, "bytes_per_stack": per_stack,
                 "raw": {k: st(k) for k in ("mem.alloc.bare", "mem.alloc.gpuleak", "mem.stacks.one", "mem.stacks.many")}}
P("")
begin(6)
if "py.bare" in vals:
    b, nat, py = med("py.bare"), med("py.native"), med("py.python")
    P("6. Python (ctypes cudaMalloc/cudaFree at Python depth 20; ns per pair)")
    P("   bare %s   gpuleak, native frames only %s   gpuleak with Python frames %s" % (mmm("py.bare"), mmm("py.native"), mmm("py.python")))
    P("   cost per allocation: %s ns with Python frames, of which Python frames %s ns (target <= 100: %s)" % (
      f(py - b), f(py - nat), "met" if py - nat <= 100 else "MISSED"))
    res["python"] = {"bare_ns": st("py.bare"), "native_only_ns": st("py.native"), "python_frames_ns": st("py.python"),
                     "gpuleak_cost_ns": py - b, "python_frames_cost_ns": py - nat}
    if "step.bare" in vals:
        # Each process times the allocation calls' share of its own steps
        # (tests/bench/bench_step.py): the Python work's speed differs from
        # process to process by more than the calls cost, the shares do not.
        # With s the share of the calls in a step, what gpuleak adds, as a
        # fraction of the bare step, is (s_gl/(1-s_gl) - s_b/(1-s_b)) x (1-s_b).
        def pays(mode):
            a, t, ab, tb = (vals.get(k) for k in ("step.%s.alloc" % mode, "step.%s" % mode, "step.bare.alloc", "step.bare"))
            if not (a and t and ab and tb) or len({len(a), len(t), len(ab), len(tb)}) != 1:
                return None
            out = []
            for x, y, xb, yb in zip(a, t, ab, tb):
                sg, sb_ = x / y, xb / yb
                if sg < 1 and sb_ < 1:
                    out.append((sg / (1 - sg) - sb_ / (1 - sb_)) * (1 - sb_))
            return statistics.median(out) if out else None
        sb = med("step.bare")
        rp, rn = pays("python"), pays("native")
        def us(k):
            v = st(k)
            return "-" if v is None else "%.0f [%.0f..%.0f]" % (v["median"] / 1e3, v["min"] / 1e3, v["max"] / 1e3)
        P("")
        P("   PyTorch-like training step (tests/bench/bench_step.py: 50 cudaMallocAsync+cudaFreeAsync per step")
        P("   among 75 ops of ~%s us of Python work each, Python depth 20; CPU only, GPU time not modelled)"
          % f(med("step.opwork") and med("step.opwork") / 1000, "%.1f"))
        P("   us per step: bare %s, gpuleak %s; the allocation calls in them: bare %s, gpuleak %s" % (
          us("step.bare"), us("step.python"), us("step.bare.alloc"), us("step.python.alloc")))
        P("   a user pays per step: %s%% of the bare step (%s us) with Python frames, %s%% (%s us) native frames only" % (
          f(rp is not None and 100 * rp, "%.1f"), f(rp is not None and sb and rp * sb / 1000, "%.0f"),
          f(rn is not None and 100 * rn, "%.1f"), f(rn is not None and sb and rn * sb / 1000, "%.0f")))
        est = None
        if sb and py is not None and b is not None:
            est = 50 * (py - b)
            P("   from row 6's cost per pair (cudaMalloc, not Async): 50 x %s ns = %s us, %s%% of the bare step" % (
              f(py - b), f(est / 1000, "%.0f"), f(100 * est / sb, "%.1f")))
        res["python"]["step"] = {"bare_ns": st("step.bare"), "native_only_ns": st("step.native"),
                                 "python_frames_ns": st("step.python"), "op_work_ns": st("step.opwork"),
                                 "bare_alloc_ns": st("step.bare.alloc"), "python_frames_alloc_ns": st("step.python.alloc"),
                                 "native_only_alloc_ns": st("step.native.alloc"),
                                 "overhead_python": rp, "overhead_native": rn,
                                 "estimate_from_pairs_ns": est}
else:
    P("6. Python: not measured (no python3, or no Python-frame support in this build)")
P("")
begin(8)
if "att.before" in vals and "att.after" in vals:
    # Same process before the attach and after the detach: the target is
    # "after <= before + noise", noise being 5% of before's median or
    # before's own spread over the runs, whichever is larger.
    bef, aft = st("att.before"), st("att.after")
    limit = max(1.05 * bef["median"], bef["max"])
    ok = aft["median"] <= limit
    P("8. attach (fakecuda; bench_work serve, one process: %s cudaMalloc+cudaFree pairs at depth 32 a loop," % n)
    P("   best of 3 loops a phase)")
    P("   gpuleak attach PID: %s ms   gpuleak detach PID: %s ms" % (mmm("att.attach_ms"), mmm("att.detach_ms")))
    P("   (wall time of each command: gdb's start included, and the detach's last snapshot)")
    P("   ns per pair, same process: before any attach %s, attached %s, after detach %s" % (
      mmm("att.before"), mmm("att.during"), mmm("att.after")))
    P("   after/before %s (median of per-run ratios); a separate process never attached to: %s" % (
      f(pratio("att.after", "att.before"), "%.2f"), mmm("att.bare")))
    P("   tolerance: after's median <= max(1.05 x before's median, before's max) = %.0f ns" % limit)
    P("   verdict, after detach: same as without gpuleak: %s" % ("met" if ok else "MISSED"))
    if not ok:
        P("   (no gpuleak code runs after the detach; what differs is glibc's heap: docs/performance.md, 8.)")
    if att_why:
        P("   stopped early: %s" % att_why)
    ir_res = None
    ir = {k: vals["att.ir_" + k][0] for k in ("before_attach", "while_attached", "after_detach")
          if "att.ir_" + k in vals}
    if len(ir) == 3:
        # Instructions are exact: "the same" allows 1% (glibc's heap paths)
        ir_ok = ir["after_detach"] <= 1.01 * ir["before_attach"]
        P("   instructions per pair (callgrind, load-proof; in-process attach): before %.0f, attached %.0f, "
          "after detach %.0f" % (ir["before_attach"], ir["while_attached"], ir["after_detach"]))
        P("   verdict, after detach in instructions (<= 1.01 x before): %s" % ("met" if ir_ok else "MISSED"))
        ir_res = dict(ir, after_detach_met=ir_ok)
    res["attach"] = {"attach_ms": st("att.attach_ms"), "detach_ms": st("att.detach_ms"),
                     "before_ns": bef, "attached_ns": st("att.during"), "after_ns": aft,
                     "bare_process_ns": st("att.bare"),
                     "after_over_before": pratio("att.after", "att.before"),
                     "after_limit_ns": limit, "after_detach_met": ok}
    if ir_res:
        res["attach"]["instructions"] = ir_res
else:
    P("8. attach: not measured%s" % (" (%s)" % att_why if att_why else ""))
    res["attach"] = None
wanted = {int(x) for x in only.replace(" ", "").split(",") if x}
if wanted:
    kept = lines[:starts[0][1]]
    for i, (section, at) in enumerate(starts):
        if section in wanted:
            kept += lines[at:starts[i + 1][1] if i + 1 < len(starts) else len(lines)]
    lines = kept
text = "\n".join(lines)
print(text)
res["table"] = text
with open(out_json, "w") as fh:
    json.dump(res, fh, indent=1)
print("\n(figures also in %s; see docs/performance.md)" % out_json)
PY

# ---- 7. a real PyTorch step (its own script: torch in a venv) ---------------
if want 7; then
    echo
    scripts/bench-torch.sh "$BUILD"
    echo
    scripts/bench-torch-instr.sh "$BUILD"
fi

# ---- 9. gpuleak plan: a plan vs a CPU run, an 80 GB plan's host memory ------
if want 9; then
    echo
    scripts/bench-plan.sh "$BUILD"
fi

# ---- the verdicts: issue 46's targets from sections 1, 2, 7 and 7b ----------
echo
scripts/bench-verdicts.py "$OUT_JSON" "$TORCH_JSON" "$INSTR_JSON" --since "$bench_start"
