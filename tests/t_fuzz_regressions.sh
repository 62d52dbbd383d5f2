# Replays the fuzzing seed corpus and every regression input (inputs that
# once crashed or broke a property) through each fuzz harness, built with
# the plain compiler (and so under the sanitizers in their phases): see
# tests/fuzz/ and docs/reliability.md.
source "$ROOT/tests/lib.sh"
for h in "$ROOT"/tests/fuzz/fuzz_*.c; do  # every harness there is
    t=${h##*/fuzz_}; t=${t%.c}
    bin=$TPROG/fuzz/replay_$t
    [ -x "$bin" ] || fail "$bin not built"
    dirs=("$ROOT/tests/fuzz/corpus/$t")
    [ -d "$ROOT/tests/fuzz/regressions/$t" ] && dirs+=("$ROOT/tests/fuzz/regressions/$t")
    "$bin" "${dirs[@]}" >replay.$t.out 2>replay.$t.err || fail "replay $t: $(tail -5 replay.$t.err)"
    n=$(sed -n 's/ inputs replayed//p' replay.$t.out)
    [ "${n:-0}" -gt 0 ] || fail "replay $t: no input replayed"
done
true
