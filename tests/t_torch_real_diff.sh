# Real PyTorch 2.14.1: diff over a series (issue 33), on fakecuda
# (tests/t_torch_real.sh says how torch runs here).  torch_real_train.py
# asks for a snapshot after each of 3 steps; `gpuleak-report diff` over
# them names exactly one suspected leak in PyTorch's cache, the planted
# line, with its bytes and tensors at each step.  The exit snapshot's
# leaks and caches add up: nothing leaked (Python freed the list), PyTorch's
# cache holds every live byte, which is the last step's memory_reserved().
source "$ROOT/tests/lib.sh"
torch_real_setup
prog=$ROOT/tests/programs/torch_real_train.py
planted=$(site_line torch_real_train.py PLANTED-LINE)

torch_real_run "$prog"
read -r _ _ _ _ _ reserved < <(grep "^step 2 " out.txt)

"$REPORT" diff --json step0.snap step1.snap step2.snap >diff.json || fail "diff: exit $?"
got=$(python3 -c '
import json
t = json.load(open("diff.json"))["torch_lines"]
sus = [((l["file"] or "").rsplit("/", 1)[-1], l["line"], l["bytes"], l["count"]) for l in t["lines"] if l["suspected_leak"]]
print(t["snapshots_with_torch"], sus)')
expect_eq "$got" "3 [('torch_real_train.py', $planted, [524288, 1048576, 1572864], [1, 2, 3])]" \
    "snapshots with PyTorch's view; the suspected leaks: line, bytes and tensors per step"
"$REPORT" diff step0.snap step1.snap step2.snap >diff.txt || fail "diff (text): exit $?"
expect_eq "$(grep -c 'suspected leak' diff.txt)" 1 "suspected leaks in the text diff"
grep -Fq "<module> (torch_real_train.py:$planted), suspected leak (its tensors grew at every step)" diff.txt ||
    fail "the text diff does not name the planted line"

exits=(gpuleak.*.snap)
expect_eq "${#exits[@]}" 1 "exit snapshots"
"$REPORT" --json "${exits[0]}" >exit.json || fail "report of the exit snapshot: exit $?"
got=$(python3 -c '
import json
d = json.load(open("exit.json"))
s = d["leak_summary"]
print(d["snapshot"]["reason"], s["bytes"], s["leaked_bytes"] + s["cached_bytes"] + s["suppressed_bytes"] + s["mapped_bytes"] + s["cuda_modules_bytes"],
      s["leaked_bytes"], s["cached_bytes"], d["allocator_caches"]["bytes"], d["devices"][0]["live_bytes"])')
expect_eq "$got" "exit $reserved $reserved 0 $reserved $reserved $reserved" \
    "exit snapshot: live, the parts summed, leaked, cached, PyTorch's cache, the device's live bytes"
