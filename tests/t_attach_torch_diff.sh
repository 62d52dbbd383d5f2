# A live PyTorch job, attached, then diffed (issue 48, item 14): a request
# loop that keeps every 10th result (torch_real_requests.py, KEEP-LINE),
# started on fakecuda with no preload; `gpuleak attach`, two `gpuleak
# snapshot`s, `gpuleak detach`, then `gpuleak diff` of the three files.  The
# detach's snapshot asks PyTorch for its view as the attach and the
# snapshots do, so it carries it (before: no TORCH record, status "absent",
# and diff read its tensors as zero: the kept line's row went 10 -> 30 -> 0
# tensors, -1,310,720 bytes, and the segments of PyTorch's cache were
# called a suspected leak at the temporary's line).  The diff names the
# kept line, exactly: 10 -> 30 -> 40 tensors of 128 KiB (the program
# records PyTorch's history from its start, so the 10 kept before the
# attach have their line too), a suspected leak; no segment is.
source "$ROOT/tests/lib.sh"
torch_real_setup
command -v gdb >/dev/null || { echo "SKIP: no gdb"; exit 77; }
prog=$ROOT/tests/programs/torch_real_requests.py
keep=$(site_line torch_real_requests.py KEEP-LINE)
call=$(site_line torch_real_requests.py SERVE-CALL)

target_start job 1200 "$FAKECUDA/fakecuda-run" --devices 1 -- "$PY" "$prog"
target_send job "serve 100"
mkdir snaps
"$LAUNCHER" attach --output snaps/ "$pid" 2>attach.err || fail "attach: $(cat attach.err)"
s1=$("$LAUNCHER" snapshot "$pid") || fail "first snapshot"
target_send job "serve 200"
s2=$("$LAUNCHER" snapshot "$pid") || fail "second snapshot"
target_send job "serve 100"
s3=$("$LAUNCHER" detach "$pid" 2>detach.err) || fail "detach: $(cat detach.err)"
target_finish
expect_eq "$rc" 0 "the job's own exit status"

# Each snapshot carries PyTorch's view; the detach's too.
for s in "$s1" "$s2" "$s3"; do
    "$REPORT" --json "$s" >one.json || fail "$s: report: exit $?"
    echo "$(jget one.json 'd["snapshot"]["reason"]') $(jget one.json 'd["torch"]["status"]') $(jget one.json 'd["torch"]["allocated_bytes"]')"
done >views.txt
expect_eq "$(cat views.txt)" "signal answered 1310720
signal answered 3932160
detach answered 5242880" "each snapshot's reason, PyTorch's view and its allocated bytes"

# The diff of all three: the kept line, its bytes and tensors exactly.
"$LAUNCHER" diff --json "$s1" "$s2" "$s3" >diff.json 2>diff.err || fail "diff --json: exit $?: $(cat diff.err)"
got=$(python3 -c '
import json
t = json.load(open("diff.json"))["torch_lines"]
print(t["snapshots_with_torch"], [(l["line"], l["bytes"], l["count"], l["growth"], l["suspected_leak"]) for l in t["lines"] if l["growth"] or l["suspected_leak"]])')
expect_eq "$got" "3 [($keep, [1310720, 3932160, 5242880], [10, 30, 40], 3932160, True)]" \
    "the diff's tensor lines: snapshots with the view; the kept line's bytes, tensors, growth, verdict"
"$LAUNCHER" diff "$s1" "$s2" "$s3" >diff.txt 2>diff.err || fail "diff: exit $?: $(cat diff.err)"
expect_eq "$(sed -n "/^TENSORS IN PYTORCH'S CACHE/,/^CHANGES BY STACK/p" diff.txt | sed '$d')" "TENSORS IN PYTORCH'S CACHE
Live tensors by the Python line that allocated them, from PyTorch's own view
(3 of the 3 snapshots carry it):

+3,932,160 bytes (3.8 MiB): serve (torch_real_requests.py:$keep), suspected leak (its tensors grew at every step)
    live bytes: 1,310,720 -> 3,932,160 -> 5,242,880
    tensors:    10 -> 30 -> 40
    #0 serve (torch_real_requests.py:$keep) [python]
    #1 <module> (torch_real_requests.py:$call) [python]" "the diff's TENSORS IN PYTORCH'S CACHE"
# No segment of PyTorch's cache is called a suspected leak: its view explains them.
expect_eq "$(grep -c 'suspected leak (monotonic growth)\|allocator cache grew at every step' diff.txt)" 0 \
    "segments called a suspected leak: $(grep 'suspected leak' diff.txt)"
echo ok
