# PyTorch's stacks live only in the snapshot whose view names them (issue
# 34, defect 8; docs/pytorch.md): a program keeps 3,000 tensors, each from
# its own Python line (tests/programs/torch_stacks.py, on the stand-in torch
# package), requests a snapshot, frees them, requests another and exits.
# The first snapshot holds PyTorch's 3,000 stacks and their frames; the
# second and the exit snapshot hold the process's own only, exactly as many
# as a run that never asked PyTorch (GPULEAK_TORCH=0).  Before, every later
# snapshot carried all 3,000 (6.4 MB at 20k lines in the issue's trial).
source "$ROOT/tests/lib.sh"
torch_standin_setup
# Every tensor's line from PyTorch's first CUDA use, as asserted here (the
# default waits for the first request: t_torch_real_lines).
export GPULEAK_TORCH_LINES=start
prog=$ROOT/tests/programs/torch_stacks.py
N=3000
count() { "$TPROG/snapfields" count "$1" "$2" | cut -d' ' -f1; } # SNAP RECORD: how many

traced python3 "$prog" $N view.snap after.snap >out.txt || fail "run: exit $?"
expect_eq "$(cat out.txt)" "allocated $((N * 512)) reserved 2097152" "what the stand-in held"
exit_snap=$(only_snapshot)
# The process's own: one cudaMalloc stack (the stand-in's one segment) and
# its Python frames (the allocator's, the program's and the module's).
mkdir off
(cd off && GPULEAK_TORCH=0 traced python3 "$prog" $N view.snap after.snap >/dev/null) || fail "off run: exit $?"
own_stacks=$(count off/view.snap STACK) own_frames=$(count off/view.snap PYFRAME)
expect_eq "$own_stacks $own_frames" "1 6" "the process's own stacks and frames"
expect_eq "$(count off/view.snap TORCH)" 0 "no view with GPULEAK_TORCH=0"

# Later snapshots: none of PyTorch's.
for s in after.snap "$exit_snap"; do
    expect_eq "$(count "$s" STACK) $(count "$s" PYFRAME)" "$own_stacks $own_frames" "stacks and frames of $s"
done
# The view's snapshot: its N stacks, and N + 1 frames (N lines of make(),
# and the module's line that called them).
expect_eq "$(count view.snap STACK) $(count view.snap PYFRAME)" \
    "$((own_stacks + N)) $((own_frames + N + 1))" "stacks and frames of the view's snapshot"
"$REPORT" --json view.snap >view.json || fail "report exit $?"
check_json view.json <<PY
t = d["torch"]
eq((t["tensor_count"], [len(g["tensors"]) for g in t["segments"]]), ($N, [$N]), "tensors and lines")
eq(sorted(x["line"] for x in t["segments"][0]["tensors"]), list(range(1001, 1001 + $N)), "one line each")
PY
expect_eq "$(count after.snap TORCH_BLOCKS)" "1" "the second view's blocks (the free segment)"
"$REPORT" --json after.snap >after.json || fail "report exit $?"
check_json after.json <<'PY'
eq((d["torch"]["status"], d["torch"]["tensor_count"]), ("answered", 0), "the second view")
PY
