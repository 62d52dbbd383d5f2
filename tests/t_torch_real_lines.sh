# When gpuleak turns PyTorch's recorder on (GPULEAK_TORCH_LINES, issue 36),
# on real PyTorch: the recorder costs PyTorch ~1.5 us a tensor (make bench,
# section 7), so by default it is turned on by the first snapshot request,
# by gpuleak_memory._record_memory_history(), or when device memory grows
# after holding still for GPULEAK_TORCH_SETTLE; GPULEAK_TORCH_LINES=start
# turns it on at PyTorch's first CUDA use; light mode (GPULEAK_MODE=light)
# never, unless the program asks.  tests/programs/torch_real_lines.py
# makes tensors A, B, C, D at known lines; each tensor's line in PYTORCH'S
# CACHE is asserted, or that it has none.
source "$ROOT/tests/lib.sh"
torch_real_setup
unset GPULEAK_TORCH_LINES  # torch_real_setup's start, for the other tests
prog=$ROOT/tests/programs/torch_real_lines.py
at() { echo "(torch_real_lines.py:$(site_line torch_real_lines.py "$1-LINE"))"; }
run() {  # run DIR MODE [VAR=VALUE...]
    mkdir -p "$1"
    (cd "$1" && env "${@:3}" "$FAKECUDA/fakecuda-run" --devices 1 -- "$LAUNCHER" run --quiet -- "$PY" "$prog" "$2" \
        >out.txt 2>err.txt) || fail "$2: exit $?: $(tail -3 "$1/err.txt")"
}
none="(no Python line: PyTorch recorded none; see GPULEAK_TORCH_LINES)"
# The first tensor (512 bytes, PyTorch's smallest block): with the recorder
# asked for from the start (GPULEAK_TORCH_LINES=start, or the program's
# _record_memory_history() first) it has its line, the recorder being
# turned on in torch.cuda's initialization (at its first cudaGetDeviceCount),
# before PyTorch's first allocation; else it is made before gpuleak finds
# PyTorch.  Without a line of its own, A shares its row (same segment, same
# "line").
# tensors SNAP: "BYTES TENSORS WHERE" per tensor line of PYTORCH'S CACHE,
# sorted; WHERE is "(file:line)" or the report's words for no line
tensors() {
    "$REPORT" "$1" | sed -n "/^PYTORCH'S CACHE/,/^LEAK SUMMARY/p" |
        awk '/^        [0-9,]+ bytes .* tensors?: / { n = $1; gsub(/,/, "", n)
             split($0, a, " in "); split(a[2], b, " "); sub(/^.* tensors?: /, ""); sub(/^[^ (]+ \(/, "(")
             print n, b[1], $0 }' | sort
}

run request request
expect_eq "$(tensors request/one.snap)" "1049088 2 $none" \
    "default, first snapshot: A was made before the first request"
expect_eq "$(tensors request/two.snap)" "1049088 2 $none
2097152 1 $(at B)" "default, second snapshot: B has its line"

run start request GPULEAK_TORCH_LINES=start
expect_eq "$(tensors start/one.snap)" "1048576 1 $(at A)
512 1 $(at FIRST)" "GPULEAK_TORCH_LINES=start: every tensor has its line, the first one too"

run history history
expect_eq "$(tensors history/one.snap)" "1048576 1 $(at A)
512 1 $(at FIRST)" "_record_memory_history() first: every tensor has its line, the first one too"

run growth growth GPULEAK_TORCH_SETTLE=1
expect_eq "$(tensors growth/two.snap)" "1049088 2 $none
33554432 1 $none
524288 1 $(at D)" "growth after 1.5 s of quiet: D, made after the cache grew, has its line"

# Light mode (GPULEAK_MODE=light): gpuleak never turns the recorder on by
# itself, not even at a request (B has no line either); the program's own
# _record_memory_history() still does.
run light request GPULEAK_MODE=light
expect_eq "$(tensors light/two.snap)" "1049088 2 $none
2097152 1 $none" "light mode, second snapshot: no line"
run light_history history GPULEAK_MODE=light
expect_eq "$(tensors light_history/one.snap)" "1048576 1 $(at A)
512 1 $(at FIRST)" "light mode, _record_memory_history() first: every tensor has its line"

# A bad value: one line, the default kept.
run bad request GPULEAK_TORCH_LINES=sometimes
expect_eq "$(grep -c 'GPULEAK_TORCH_LINES' bad/err.txt)" 1 "one warning for a bad value"
expect_eq "$(tensors bad/one.snap)" "1049088 2 $none" "bad value: the default"
