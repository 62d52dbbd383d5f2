# gpuleak plan --fit (issue 44, items 4 and 5): the largest batch of the
# GPT of tests/programs/plan_gpt.py (one AdamW step) that fits a 1000 MiB
# h100-sxm-80gb (less its 512 MiB context), bisected by the real
# allocator's own out-of-memory, agrees with direct runs of the script on
# the same card without gpuleak or plan: the largest value trains and
# prints its peaks, the next raises torch.OutOfMemoryError.  The range is
# narrow (2 runs) to keep the test short (1..16 takes 5 runs and gives 14
# too: batches 13 and 14 reserve 488 MiB, all there is); the bisection's
# runs are in the JSON, K + 1 among them.  Before: "unknown option
# '--fit'"; on the GPT, before plan_gpt.py: "can't open file".
source "$ROOT/tests/lib.sh"
torch_real_setup
prog=$ROOT/tests/programs/plan_gpt.py
CARD=(--gpu h100-sxm-80gb --gpu-memory 1000MiB)
LO=14 HI=15 K=14

"$LAUNCHER" plan "${CARD[@]}" --steps 1 --json fit.json --fit batch=$LO..$HI -- "$PY" "$prog" --batch '{batch}' --steps 0 \
    >table.txt 2>progress.txt || fail "plan exited $?: $(tail -3 progress.txt)"
expect_eq "$(jget fit.json 'd["fit"]')" "{\"name\": \"batch\", \"low\": $LO, \"high\": $HI, \"largest\": $K}" "the fit"
expect_eq "$(tail -1 table.txt)" "largest batch that fits in $LO..$HI: $K" "the table's last line"
expect_eq "$(jget fit.json '[(r["values"]["batch"], r["fits"], r["oom"]) for r in d["runs"]]')" "[[14, true, false], [15, false, true]]" "the runs, by value"

# Directly, as a user would check on the card.
"$FAKECUDA/fakecuda-run" "${CARD[@]}" --devices 1 -- "$PY" "$prog" --batch $K --steps 1 >k.out 2>k.err || fail "batch $K directly: exit $?: $(tail -2 k.err)"
grep -q '^peaks ' k.out || fail "batch $K directly: $(cat k.out)"
rc=0; "$FAKECUDA/fakecuda-run" "${CARD[@]}" --devices 1 -- "$PY" "$prog" --batch $((K + 1)) --steps 1 >k1.out 2>k1.err || rc=$?
expect_eq "$rc" 1 "batch $((K + 1)) directly: status"
grep -q '^torch.OutOfMemoryError: CUDA out of memory' k1.err || fail "batch $((K + 1)) directly: $(tail -2 k1.err)"
