#!/usr/bin/env bash
# Runs each libFuzzer target (make fuzz-build: $FUZZ_BUILD/fuzz_<target>) for
# FUZZ_SECONDS seconds, starting from the seed corpus tests/fuzz/corpus/<t>
# (read only; new inputs go to $FUZZ_BUILD/corpus/<t>, kept between runs).
# A crash, leak, timeout or property failure is kept under
# $FUZZ_BUILD/crashes/<t>/: minimize it and add it to
# tests/fuzz/regressions/<t>/ (replayed by tests/t_fuzz_regressions.sh).
# Each target is one test: the last line is "N passed, N failed".
#   scripts/fuzz.sh [TARGET...]      default: every target
set -uo pipefail
cd "$(dirname "$0")/.."
FUZZ_BUILD=${FUZZ_BUILD:-build-fuzz}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then # every harness there is (tests/fuzz/fuzz_<target>.c)
    for h in tests/fuzz/fuzz_*.c; do t=${h##*/fuzz_}; targets+=("${t%.c}"); done
fi
pass=0; fail=0
for t in "${targets[@]}"; do
    bin=$FUZZ_BUILD/fuzz_$t
    corpus=$FUZZ_BUILD/corpus/$t
    crashes=$FUZZ_BUILD/crashes/$t
    mkdir -p "$corpus" "$crashes"
    log=$FUZZ_BUILD/fuzz_$t.log
    if [ ! -x "$bin" ]; then
        echo "FAIL fuzz_$t: $bin not built (make fuzz-build)"; fail=$((fail + 1)); continue
    fi
    # the regression inputs run first with the seeds, under clang's sanitizers
    regress=; [ -d "tests/fuzz/regressions/$t" ] && regress=tests/fuzz/regressions/$t
    # -timeout: an input taking over 10 s is a bug (e.g. a matcher gone
    # exponential); -rss_limit_mb: so is one needing 1 GiB.
    start=$(date +%s)
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
        "$bin" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=1024 -max_len=65536 \
        -print_final_stats=1 -artifact_prefix="$crashes/" "$corpus" "tests/fuzz/corpus/$t" $regress \
        >"$log" 2>&1
    rc=$?
    secs=$(( $(date +%s) - start ))
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
    if [ $rc -eq 0 ]; then
        pass=$((pass + 1))
        printf 'PASS fuzz_%-10s %5d s, %s runs, %s, corpus %s\n' "$t" "$secs" "${runs:-?}" "${cov:-cov: ?}" \
            "$(ls "$corpus" | wc -l)"
    else
        fail=$((fail + 1))
        printf 'FAIL fuzz_%-10s %5d s (exit %d); artifacts in %s\n' "$t" "$secs" "$rc" "$crashes"
        grep -E 'ERROR|SUMMARY|fuzz property failed|Test unit written' "$log" | head -20 | sed 's/^/    /'
    fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
