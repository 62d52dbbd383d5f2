# Real PyTorch 2.14.1 (issue 33): its own caching allocator, autograd and
# SGD on fakecuda's runtime (build/fakecuda/fakecuda-run), under the
# launcher: `fakecuda-run -- gpuleak run -- python ...`, so the launcher's
# libgpuleak.so comes first in LD_PRELOAD and sees torch's runtime calls.
# tests/programs/torch_real_train.py asks for a snapshot after each of 3
# steps and prints torch.cuda.memory_allocated()/memory_reserved() at the
# same moment: gpuleak's tensor total and segment total must equal them,
# and PYTORCH'S CACHE must name the planted line (a list that keeps one
# 512 KiB tensor per step) with exactly its tensors.
source "$ROOT/tests/lib.sh"
torch_real_setup
prog=$ROOT/tests/programs/torch_real_train.py
planted=$(site_line torch_real_train.py PLANTED-LINE)

torch_real_run "$prog"
expect_eq "$(grep -c '^step ' out.txt)" 3 "steps printed"

# bytes "LINE": the number in a report line like "    reserved:  4,194,304 bytes ..."
bytes() { grep -m1 "^    $1:" | sed -E 's/^[^0-9]*([0-9,]+) bytes.*/\1/' | tr -d ,; }
for i in 0 1 2; do
    read -r _ _ _ allocated _ reserved < <(grep "^step $i " out.txt)
    "$REPORT" "step$i.snap" >r$i.txt || fail "report of step $i: exit $?"
    sed -n "/^PYTORCH'S CACHE/,/^LEAK SUMMARY/p" r$i.txt >cache$i.txt
    expect_eq "$(bytes allocated <cache$i.txt)" "$allocated" "step $i: gpuleak's tensor total vs memory_allocated()"
    expect_eq "$(bytes reserved <cache$i.txt)" "$reserved" "step $i: gpuleak's segment total vs memory_reserved()"
    # The planted line's tensors, summed over the segments: one 512 KiB
    # tensor per step so far.
    got=$(awk -v site="(torch_real_train.py:$planted)" '$0 ~ / in [0-9]+ tensors?: / && index($0, site) {
              gsub(/,/, "", $1); n += $1; split($0, a, " in "); split(a[2], b, " "); t += b[1] }
          END { print n + 0, t + 0 }' cache$i.txt)
    expect_eq "$got" "$(((i + 1) * 524288)) $((i + 1))" "step $i: bytes and tensors at the planted line"
    # PyTorch's segments are its cache, not leaks.
    grep -Eq '^No leaks: the [0-9]+ live allocations? are held by allocator caches or suppressed.$' r$i.txt ||
        fail "step $i: segments not held by the cache: $(sed -n '/^LEAKS/,+2p' r$i.txt)"
done
