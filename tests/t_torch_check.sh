# PyTorch's view checked against itself and gpuleak's own segments (issue 34,
# defect 9; report/model/torch_check.h, docs/pytorch.md): snapgen's
# torchview snapshots, one that adds up and one per inconsistency.  Each
# inconsistent view gets exactly one warning line in PYTORCH'S CACHE, naming
# what does not add up, no totals, `consistent: false` with the same
# problems in JSON, and its segments are not taken as PyTorch's cache; the
# one that adds up gets none of that.  Before, the reporter showed 1.8 GB
# allocated inside 2 MiB reserved without a word.
source "$ROOT/tests/lib.sh"
gen() { "$TPROG/snapgen" torchview "$1.snap" "$1" || fail "snapgen torchview $1"; }
W="warning: PyTorch's view does not add up, so its totals are not used: "
section() { "$REPORT" --sections leaks "$1.snap" | sed -n "/^PYTORCH'S CACHE/,/^segment/p"; }

# KIND WANTED-PROBLEMS (the warning's text after its head)
expect_problem() {
    gen "$1"
    section "$1" >"$1.txt" || fail "report $1"
    expect_eq "$(grep -c '^warning:' "$1.txt")" 1 "warning lines of $1"
    expect_eq "$(grep '^warning:' "$1.txt")" "$W$2" "warning of $1"
    grep -q '^    reserved:' "$1.txt" && fail "$1: the view's totals shown"
    "$REPORT" --json "$1.snap" >"$1.json" || fail "json $1"
    check_json "$1.json" <<PY
eq((d["torch"]["consistent"], "; ".join(d["torch"]["problems"])), (False, """$2"""), "JSON of $1")
PY
    # Not PyTorch's cache: gpuleak's segments are leaks, their stack matching
    # no built-in rule (snapgen's own functions).
    "$REPORT" "$1.snap" | grep -q 'held by pytorch-caching-allocator' && fail "$1: segments taken as the cache"
    return 0
}

expect_problem overcommit "allocated 1,800,000,000 bytes is more than reserved 4,194,304 bytes; its live blocks sum to 1,572,864 bytes, not the allocated 1,800,000,000"
expect_problem blocksum "its blocks sum to 4,194,304 bytes, not the reserved 8,388,608"
expect_problem segcount "its blocks name 2 segments, not the stated 3"
expect_problem outside "block 0x10180000 (1,048,576 bytes) lies outside its segment 0x10000000"
expect_problem blockoverlap "blocks 0x10000000 and 0x10080000 overlap"
expect_problem segoverlap "segments 0x10000000 and 0x10100000 overlap"
expect_problem bigger "segment 0x10200000 holds 2,097,152 bytes of blocks, more than gpuleak's cudaMalloc there (1,048,576 bytes)"
expect_problem device "segment 0x10200000 is on device 0, gpuleak's cudaMalloc there on device 1"
expect_problem straddle "segment 0x10200000 overlaps gpuleak's cudaMalloc at 0x10300000 (2,097,152 bytes)"

# The view that adds up: no warning, its totals, its segments the cache.
gen ok
section ok >ok.txt
grep -q '^warning' ok.txt && fail "a warning for a consistent view: $(grep '^warning' ok.txt)"
expect_eq "$(sed -n 's/^    \(reserved\|allocated\|cached\):  *//p' ok.txt)" "4,194,304 bytes (4.0 MiB) in 2 segments
1,572,864 bytes (1.5 MiB) in 2 tensors
2,621,440 bytes (2.5 MiB) (free for reuse, or waiting for a stream)" "totals of the consistent view"
"$REPORT" --json ok.snap >ok.json || fail "json ok"
check_json ok.json <<'PY'
eq((d["torch"]["consistent"], d["torch"]["problems"]), (True, []), "JSON of ok")
PY
"$REPORT" ok.snap | grep -qx 'No leaks: the 2 live allocations are held by allocator caches or suppressed.' ||
    fail "the consistent view's segments are not the cache"

# A series: the view that does not add up is no step of it.
"$REPORT" --json diff ok.snap overcommit.snap ok.snap >d.json || fail "json diff"
check_multi_json d.json <<'PY'
eq(d["torch_lines"]["snapshots_with_torch"], 2, "snapshots with a view that adds up")
PY

# A view whose stacks are the snapshot's only ones: its first line is the
# report's first frame, which was taken for "no stack" (frame id 0).
"$TPROG/snapgen" torchlines lines.snap 3 || fail "snapgen torchlines"
"$REPORT" --sections leaks lines.snap | grep '^        512 bytes' >lines.txt || fail "report lines"
expect_eq "$(cat lines.txt)" "        512 bytes in 1 tensor: make (gen.py:1000)
        512 bytes in 1 tensor: make (gen.py:1001)
        512 bytes in 1 tensor: make (gen.py:1002)" "lines of a view with no other stack"
