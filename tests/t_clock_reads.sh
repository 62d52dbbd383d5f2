# The clock an event's stamp reads (issue 46; docs/performance.md, "The
# clock" and "A cheaper clock").  tests/programs/clock_reads counts the
# library's clock_gettime calls on its own thread over N pairs.
#
# GPULEAK_CLOCK=kernel: every read is the kernel's, and a pair reads twice
# (an event's time is the tick of its stamp, read under its shard's lock),
# plus the rare reads, bounded: one a merge (a lane asks for one every
# GL_LANE_MERGE_AT = 768 events) and one a Python probe (at most every
# 1,024th capture).  An allocation that also read the clock for a time the
# table then replaced made it 3N.
#
# By default, where the kernel's own clocksource is the TSC, gpuleak's
# clock is the TSC fitted to CLOCK_MONOTONIC (interpose/base/clock.h):
# once fitted, a pair calls clock_gettime no more, and neither does
# anything rare.  Elsewhere the default is the kernel's clock, as above.
source "$ROOT/tests/lib.sh"
N=7680
rare=$((2 * N / 768 + 2 * N / 1024 + 4))
src=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo none)
for mode in full light; do
    out=$(GPULEAK_CLOCK=kernel GPULEAK_MODE=$mode GPULEAK_OUTPUT="$PWD/" traced "$TPROG/clock_reads" $N) ||
        fail "clock_reads ($mode, kernel clock): $?"
    reads=${out##*reads=}
    expect_eq "${out%% *}" "pairs=$N" "$mode: pairs"
    [ "$reads" -ge $((2 * N)) ] && [ "$reads" -le $((2 * N + rare)) ] ||
        fail "$mode: $reads clock reads for $N pairs, expected $((2 * N)) to $((2 * N + rare))"
    echo "$mode, GPULEAK_CLOCK=kernel: $reads clock reads for $N pairs"

    out=$(GPULEAK_MODE=$mode GPULEAK_OUTPUT="$PWD/" traced "$TPROG/clock_reads" $N settle) ||
        fail "clock_reads ($mode): $?"
    reads=${out##*reads=}
    if [ "$src" = tsc ]; then
        settled=${out#settled=}
        settled=${settled%% *}
        [ "$settled" -gt 0 ] || fail "$mode: the clock was never fitted to the TSC ($out)"
        expect_eq "$reads" 0 "$mode: clock_gettime calls for $N pairs on the fitted TSC"
        echo "$mode: TSC fitted after $settled tries; $reads clock_gettime calls for $N pairs"
    else
        [ "$reads" -ge $((2 * N)) ] && [ "$reads" -le $((2 * N + rare)) ] ||
            fail "$mode: $reads clock reads for $N pairs on clocksource $src, expected $((2 * N)) to $((2 * N + rare))"
        echo "$mode: clocksource $src, $reads clock reads for $N pairs"
    fi
done
