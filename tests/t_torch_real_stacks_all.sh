# A program that turns PyTorch's recorder on itself with PyTorch's default
# stacks="all" (issue 45, item 4): each block's frames then mix C++ frames
# (torch::unwind::unwind(), the allocator, the interpreter's C functions)
# with the Python ones.  gpuleak takes the Python frames only, so the same
# program with stacks="all" and with stacks="python" gives the same lines and
# bytes in `report` and `diff`; and the program's recorder keeps its own
# settings (its trace is max_entries long, and with "all" its frames are
# still C++ ones).  On fakecuda (tests/t_torch_real.sh says how torch runs
# here).
source "$ROOT/tests/lib.sh"
torch_real_setup
prog=$ROOT/tests/programs/torch_real_stacks_all.py
planted=$(site_line torch_real_stacks_all.py PLANTED-LINE)
layer=$(site_line torch_real_stacks_all.py LAYER-LINE)

# tensors SNAP: "BYTES TENSORS WHERE" per tensor line of PYTORCH'S CACHE, sorted
tensors() {
    "$REPORT" "$1" | sed -n "/^PYTORCH'S CACHE/,/^LEAK SUMMARY/p" |
        awk '/^        [0-9,]+ bytes .* tensors?: / { n = $1; gsub(/,/, "", n)
             split($0, a, " in "); split(a[2], b, " "); sub(/^.* tensors?: /, ""); print n, b[1], $0 }' | sort
}
# suspects DIR: the diff's suspected tensor lines over the three steps
suspects() {
    "$REPORT" diff "$1"/step0.snap "$1"/step1.snap "$1"/step2.snap |
        sed -n "/^TENSORS IN PYTORCH'S CACHE/,/^CHANGES BY STACK/p" | grep -A2 '^+.*suspected leak'
}
for mode in all python; do
    mkdir -p "$mode"
    (cd "$mode" && "$FAKECUDA/fakecuda-run" --devices 1 -- "$LAUNCHER" run --quiet -- "$PY" "$prog" "$mode" \
        >out.txt 2>err.txt) || fail "$mode: exit $?: $(tail -3 "$mode/err.txt")"
    if grep -q '^fakecuda: ' "$mode/err.txt"; then fail "$(grep '^fakecuda: ' "$mode/err.txt")"; fi
done
expect_eq "$(cat all/out.txt)" "entries 16 cxx True" "stacks=all: the program's recorder as it set it"
expect_eq "$(cat python/out.txt)" "entries 16 cxx False" "stacks=python: the program's recorder as it set it"

want=$(tensors python/step2.snap)
expect_eq "$(tensors all/step2.snap)" "$want" "the same tensor lines with stacks=all as with stacks=python"
grep -Fxq "263168 2 <module> (torch_real_stacks_all.py:$layer)" <<<"$want" || fail "the layer's weights: $want"
got=$(awk -v site="<module> (torch_real_stacks_all.py:$planted)" '$3 " " $4 == site { n += $1; t += $2 }
      END { print n + 0, t + 0 }' <<<"$want")
expect_eq "$got" "3145728 3" "bytes and tensors at the planted line"

expect_eq "$(suspects all)" "+2,097,152 bytes (2.0 MiB): <module> (torch_real_stacks_all.py:$planted), suspected leak (its tensors grew at every step)
    live bytes: 1,048,576 -> 2,097,152 -> 3,145,728
    tensors:    1 -> 2 -> 3" "diff with stacks=all: the planted line, its bytes"
expect_eq "$(suspects python)" "$(suspects all)" "diff: the same with stacks=python"
