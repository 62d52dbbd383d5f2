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
#
# Then the job attached again, and its detach made while Python's main
# thread waits in C: that snapshot has no view ("not asked in time"), and
# diff reads its tensors as unknown, never zero: the kept line's row is
# 40 -> 50 -> ? tensors, +1,310,720 bytes over the two snapshots with the
# view, the third no step of growth, with one line that says so, and
# PyTorch's segments are not called a leak for want of a view (before: the
# row read 40 -> 50 -> 0, "-5,242,880 bytes").
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

# The second attach; its detach while the main thread waits in C.
mkdir snaps2
"$LAUNCHER" attach --output snaps2/ "$pid" 2>attach.err || fail "second attach: $(cat attach.err)"
t1=$("$LAUNCHER" snapshot "$pid") || fail "second attach: first snapshot"
target_send job "serve 100"
t2=$("$LAUNCHER" snapshot "$pid") || fail "second attach: second snapshot"
target_send job "serve 100" block
t3=$("$LAUNCHER" detach "$pid" 2>detach.err) || fail "second detach: $(cat detach.err)"
target_send job unblock
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
# its growth per hour (issue 45, item 8): over the time between the first
# and the last snapshot, as the attached library's clock stamped them
elapsed=$(jget diff.json 'd["snapshots"][2]["duration_ns"] - d["snapshots"][0]["duration_ns"]')
rate=$(rate_of 3932160 "$elapsed")
expect_eq "$(jget diff.json '[d["rate_elapsed_ns"]] + [l["bytes_per_hour"] for l in d["torch_lines"]["lines"] if l["suspected_leak"]]')" \
    "[$elapsed, $rate]" "the diff's time and the kept line's bytes per hour"
"$LAUNCHER" diff "$s1" "$s2" "$s3" >diff.txt 2>diff.err || fail "diff: exit $?: $(cat diff.err)"
expect_eq "$(sed -n "/^TENSORS IN PYTORCH'S CACHE/,/^CHANGES BY STACK/p" diff.txt | sed '$d')" "TENSORS IN PYTORCH'S CACHE
Live tensors by the Python line that allocated them, from PyTorch's own view
(3 of the 3 snapshots carry it):

+3,932,160 bytes (3.8 MiB): serve (torch_real_requests.py:$keep), suspected leak (its tensors grew at every step)
    live bytes: 1,310,720 -> 3,932,160 -> 5,242,880
    tensors:    10 -> 30 -> 40
    rate:       $(per_hour_text "$rate")
    #0 serve (torch_real_requests.py:$keep) [python]
    #1 <module> (torch_real_requests.py:$call) [python]" "the diff's TENSORS IN PYTORCH'S CACHE"
# No segment of PyTorch's cache is called a suspected leak: its view explains them.
expect_eq "$(grep -c 'suspected leak (monotonic growth)\|allocator cache grew at every step' diff.txt)" 0 \
    "segments called a suspected leak: $(grep 'suspected leak' diff.txt)"

# The second attach's series: its detach's snapshot has no view.
"$REPORT" --json "$t3" >one.json || fail "$t3: report: exit $?"
expect_eq "$(jget one.json 'd["torch"]["status"]')" no_answer "the blocked detach's view"
"$LAUNCHER" diff --json "$t1" "$t2" "$t3" >diff2.json 2>diff.err || fail "diff --json: exit $?: $(cat diff.err)"
got=$(python3 -c '
import json
t = json.load(open("diff2.json"))["torch_lines"]
print(t["snapshots_with_torch"], t["snapshots_without_torch"], [(l["line"], l["bytes"], l["count"], l["growth"], l["suspected_leak"]) for l in t["lines"]])')
expect_eq "$got" "2 [2] [($keep, [5242880, 6553600, None], [40, 50, None], 1310720, False)]" \
    "a view not known: its tensors null, the growth over the snapshots with one"
"$LAUNCHER" diff "$t1" "$t2" "$t3" >diff2.txt 2>diff.err || fail "diff: exit $?: $(cat diff.err)"
expect_eq "$(sed -n "/^TENSORS IN PYTORCH'S CACHE/,/^CHANGES BY STACK/p" diff2.txt | sed '$d')" "TENSORS IN PYTORCH'S CACHE
Live tensors by the Python line that allocated them, from PyTorch's own view
(2 of the 3 snapshots carry it):
snapshot 3 has no PyTorch view (PyTorch was not asked in time): its tensors are unknown (?), never 0, and no step of the growth

+1,310,720 bytes (1.2 MiB): serve (torch_real_requests.py:$keep)
    live bytes: 5,242,880 -> 6,553,600 -> ?
    tensors:    40 -> 50 -> ?
    #0 serve (torch_real_requests.py:$keep) [python]
    #1 <module> (torch_real_requests.py:$call) [python]" "a view not known: the diff's TENSORS IN PYTORCH'S CACHE"
expect_eq "$(grep -c 'suspected leak' diff2.txt)" 0 "a view not known: suspected leaks: $(grep 'suspected leak' diff2.txt)"
# The page: "?" in the table, no point on the chart, one line that says so.
if command -v chromium >/dev/null || command -v chromium-browser >/dev/null || [ -n "${CHROMIUM:-}" ]; then
    "$REPORT" --html g.html "$t1" "$t2" "$t3" || fail "--html: exit $?"
    python3 "$ROOT/tests/browser/eval_page.py" g.html drawn.json "[document.querySelector('#growth-torch-unknown').textContent,
        Array.from(document.querySelectorAll('#growth-torch-table tr')).slice(1).map(function (r) { return r.textContent; }),
        document.querySelector('svg.growth-torch polyline').getAttribute('points').split(' ').length]" || fail "the page"
    expect_eq "$(jget drawn.json 'd["errors"]') $(jget drawn.json 'd["value"]')" \
        "[] [\"Snapshot #3 has no PyTorch view: its tensors are unknown (?), never 0, and no step of the growth.\", [\"+1.3 MiB5.0 MiB6.3 MiB?4050?serve (torch_real_requests.py:$keep)\"], 2]" \
        "the page's tensor lines"
fi
echo ok
