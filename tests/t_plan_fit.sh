# gpuleak plan --fit (issue 44, item 4): the largest batch of
# tests/programs/plan_linear.py (one AdamW step) that fits a 700 MiB L4
# (less its 384 MiB context), bisected by the real allocator's own
# out-of-memory, agrees with direct runs of the script on the same card
# without gpuleak or plan: the largest value trains and prints its peaks,
# the next raises torch.OutOfMemoryError.  The range is narrow (2 runs) to
# keep the test short (1..64 takes 7 runs and gives 34 too: batch 34's
# device use is 700.0 MiB exactly); the bisection's runs are in the JSON,
# K + 1 among them.  Before: "unknown option '--fit'".
source "$ROOT/tests/lib.sh"
torch_real_setup
prog=$ROOT/tests/programs/plan_linear.py
CARD=(--gpu l4 --gpu-memory 700MiB)
LO=34 HI=35 K=34

"$LAUNCHER" plan "${CARD[@]}" --steps 1 --json fit.json --fit batch=$LO..$HI -- "$PY" "$prog" '{batch}' 0 \
    >table.txt 2>progress.txt || fail "plan exited $?: $(tail -3 progress.txt)"
expect_eq "$(jget fit.json 'd["fit"]')" "{\"name\": \"batch\", \"low\": $LO, \"high\": $HI, \"largest\": $K}" "the fit"
expect_eq "$(tail -1 table.txt)" "largest batch that fits in $LO..$HI: $K" "the table's last line"
expect_eq "$(jget fit.json '[(r["values"]["batch"], r["fits"], r["oom"]) for r in d["runs"]]')" "[[34, true, false], [35, false, true]]" "the runs, by value"

# Directly, as a user would check on the card.
"$FAKECUDA/fakecuda-run" "${CARD[@]}" --devices 1 -- "$PY" "$prog" $K 1 >k.out 2>k.err || fail "batch $K directly: exit $?: $(tail -2 k.err)"
grep -q '^peaks ' k.out || fail "batch $K directly: $(cat k.out)"
rc=0; "$FAKECUDA/fakecuda-run" "${CARD[@]}" --devices 1 -- "$PY" "$prog" $((K + 1)) 1 >k1.out 2>k1.err || rc=$?
expect_eq "$rc" 1 "batch $((K + 1)) directly: status"
grep -q '^torch.OutOfMemoryError: CUDA out of memory' k1.err || fail "batch $((K + 1)) directly: $(tail -2 k1.err)"
