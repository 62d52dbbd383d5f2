#!/usr/bin/env bash
# Everything CI runs (make check, .ci/run), in phases:
#   plain  the whole suite against the normal build (build/), in the stack
#          cache's check mode (GPULEAK_STACK_CHECK: every stack also walked
#          with unw_backtrace and compared); scripts/stack-check-sum.sh
#          prints the totals, and any difference counts as one failure
#   asan   the whole suite against an ASan+UBSan build of the library, the
#          reporter, fakecuda and the test programs (build-asan/)
#   tsan   the concurrency tests against a TSan build (build-tsan/)
#          Both sanitizer builds have the lock-order check on
#          (interpose/base/lock_rank.h): a lock taken out of order aborts.
#   fuzz   every libFuzzer target for FUZZ_SECONDS (default 30) from its
#          seed corpus (build-fuzz/; needs clang)
# CHECK_PHASES picks phases (default "plain asan tsan fuzz").  Each phase
# prints its own results and time; the very last line is the sum over all
# phases: "N passed, N failed" (", N skipped" when tests were skipped).  A
# phase that cannot build counts as one failure.
set -uo pipefail
cd "$(dirname "$0")/.."
PHASES=${CHECK_PHASES:-plain asan tsan fuzz}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
export FUZZ_SECONDS=${FUZZ_SECONDS:-30}
# Threads, fork, exit races, signals: what TSan can judge.
TSAN_TESTS=${TSAN_TESTS:-t_unit_live_table t_fakecuda_threads t_fork t_exit_paths t_robust_interposer t_teardown t_balanced t_leak_runtime t_oom_snapshot t_periodic t_peak_threads t_signal_storm t_driver_view t_bad_free t_alloc_calls t_exit_race t_fatal_snapshot t_term_after_request t_live_top t_attach_reset_race t_check_quick_end t_snap_calls_race t_event_rings t_unit_lock_mutual}

tp=0; tf=0; ts=0; summary=()
# tally LOG NAME SECONDS: adds the phase's last "N passed, N failed" line.
tally() {
    local line p f s
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -1)
    if [ -z "$line" ]; then
        p=0; f=1; s=0
    else
        p=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')
        f=$(echo "$line" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
        s=$(echo "$line" | sed -nE 's/.*, ([0-9]+) skipped.*/\1/p'); s=${s:-0}
    fi
    tp=$((tp + p)); tf=$((tf + f)); ts=$((ts + s))
    summary+=("$(printf '%-6s %4d passed, %d failed, %d skipped  %5d s' "$2" "$p" "$f" "$s" "$3")")
}
phase() {  # phase NAME CMD...
    local name=$1; shift
    local log; log=$(mktemp "${TMPDIR:-/tmp}/gpuleak-check.XXXXXX")
    local start; start=$(date +%s)
    echo "==== phase $name ===="
    "$@" 2>&1 | tee "$log"
    tally "$log" "$name" $(( $(date +%s) - start ))
    rm -f "$log"
}
build() {  # build SAN DIR: quiet sanitizer build; prints the tail on failure
    local out; out=$(make -j"$JOBS" SAN="$1" BUILD="$2" all 2>&1) && return 0
    echo "$out" | tail -30; echo "build with SAN=$1 failed"; return 1
}

for p in $PHASES; do
    case $p in
    plain)
        scdir=$(mktemp -d "${TMPDIR:-/tmp}/gpuleak-stackcheck.XXXXXX")
        phase plain env BUILD=${BUILD:-build} STACK_CHECK_DIR="$scdir" tests/run.sh
        if ! scripts/stack-check-sum.sh "$scdir"; then
            tf=$((tf + 1)); summary+=("plain  stack check: stacks differed (lines above)")
        fi
        rm -rf "$scdir" ;;
    asan) phase asan bash -c "$(declare -f build); JOBS=$JOBS; build asan build-asan && BUILD=build-asan tests/run.sh" ;;
    tsan)
        tl=(); for t in $TSAN_TESTS; do tl+=("tests/$t.sh"); done
        phase tsan bash -c "$(declare -f build); JOBS=$JOBS; build tsan build-tsan && BUILD=build-tsan tests/run.sh ${tl[*]}" ;;
    fuzz)
        if command -v "${FUZZ_CC:-clang}" >/dev/null; then
            phase fuzz bash -c "make -s -j$JOBS fuzz-build >/dev/null && scripts/fuzz.sh"
        else
            echo "==== phase fuzz: no clang (scripts/install-deps.sh installs it) ===="
            tf=$((tf + 1)); summary+=("fuzz   not run: no clang")
        fi ;;
    *) echo "unknown phase $p"; tf=$((tf + 1)) ;;
    esac
done
echo "==== summary ===="
printf '%s\n' "${summary[@]}"
if [ $ts -gt 0 ]; then echo "$tp passed, $tf failed, $ts skipped"; else echo "$tp passed, $tf failed"; fi
[ $tf -eq 0 ]
