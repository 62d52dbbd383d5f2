# A pair reads the clock twice (issue 46, docs/performance.md "The clock"):
# an event's time is the tick of its stamp, read under its shard's lock,
# and nothing else on the path reads the clock.  tests/programs/clock_reads
# counts the library's clock_gettime calls on its own thread over N pairs:
# 2N, plus the rare reads, bounded: one a merge (a lane asks for one every
# GL_LANE_MERGE_AT = 768 events) and one a Python probe (at most every
# 1,024th capture).  An allocation that also read the clock for a time the
# table then replaced made it 3N.
source "$ROOT/tests/lib.sh"
N=7680
rare=$((2 * N / 768 + 2 * N / 1024 + 4))
for mode in full light; do
    out=$(GPULEAK_MODE=$mode GPULEAK_OUTPUT="$PWD/" traced "$TPROG/clock_reads" $N) || fail "clock_reads ($mode): $?"
    reads=${out##*reads=}
    expect_eq "${out%% *}" "pairs=$N" "$mode: pairs"
    [ "$reads" -ge $((2 * N)) ] && [ "$reads" -le $((2 * N + rare)) ] ||
        fail "$mode: $reads clock reads for $N pairs, expected $((2 * N)) to $((2 * N + rare))"
    echo "$mode: $reads clock reads for $N pairs"
done
