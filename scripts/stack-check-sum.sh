#!/usr/bin/env bash
# stack-check-sum.sh DIR: sums the stack cache's check-mode logs that
# tests/run.sh had each test write (STACK_CHECK_DIR=DIR, one NAME.log per
# test: "stats ..." lines per process, "mismatch ..." lines).  Prints one
# line; fails, printing the first mismatches, when any stack differed
# (scripts/check.sh counts that as one failure).
set -u
dir=${1:?usage: stack-check-sum.sh DIR}
shopt -s nullglob
logs=("$dir"/*.log)
cat "${logs[@]}" /dev/null | awk -v tests="${#logs[@]}" '
/^stats / {
    procs++
    for (i = 2; i <= NF; i++) { split($i, kv, "="); sum[kv[1]] += kv[2] }
}
/^mismatch / { bad++ }
END {
    walks = sum["hits"] + sum["misses"] + sum["uncached"] + sum["plain"]
    printf "stack check: %d tests, %d processes; %d hits, %d misses, %d uncached, %d plain, %d fallbacks; %d compared, %d mismatches (hit rate %.1f%%)\n",
        tests, procs, sum["hits"], sum["misses"], sum["uncached"], sum["plain"], sum["fallbacks"], sum["checks"], bad + 0,
        walks ? 100 * sum["hits"] / walks : 0
    exit bad > 0
}'
rc=$?
if [ $rc -ne 0 ]; then
    grep -H '^mismatch' "${logs[@]}" | head -10
fi
exit $rc
