#!/usr/bin/env bash
# Speed of gpuleak-report on the issue's target snapshot: 1,000,000 live
# allocations, 20,000 distinct stacks, 1,000,000 history events (plus pools,
# VMM entries and labels), every section, text and JSON.  Prints wall time
# and peak memory (max RSS) of each run.  Target: under 2 s and 1 GiB on a
# 2-core machine.
#   scripts/bench-report.sh [BUILD]     (BUILD defaults to build)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-${BUILD:-build}}
N=${BENCH_ALLOCS:-1000000} S=${BENCH_STACKS:-20000} E=${BENCH_EVENTS:-1000000}
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuleak-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$BUILD/tests/snapgen" bench "$work/bench.snap" "$N" "$S" "$E"
echo "snapshot: $N live allocations, $S stacks, $E events, $(( $(stat -c %s "$work/bench.snap") / 1048576 )) MiB"
measure() { # NAME ARGS...
    local name=$1; shift
    /usr/bin/time -f "%e %M" -o "$work/time" "$BUILD/bin/gpuleak-report" "$@" \
        --output "$work/out" "$work/bench.snap"
    read -r secs kib < "$work/time"
    printf '%-6s %6.2f s  %6d MiB max RSS  %4d MiB output\n' "$name" "$secs" $((kib / 1024)) \
        $(( $(stat -c %s "$work/out") / 1048576 ))
}
measure text
measure json --json
