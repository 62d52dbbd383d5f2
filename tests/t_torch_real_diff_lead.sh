# Real PyTorch 2.14.1 (issue 35, "diff leads with what grew"), on fakecuda
# (tests/t_torch_real.sh says how torch runs here).  torch_real_grow.py
# keeps a 4 MiB tensor per step at KEPT-LINE; its 24 MiB temporary at
# TEMP-LINE is what overflows PyTorch's cache, so gpuleak's cudaMalloc
# stacks grow at TEMP-LINE.  diff names the kept line first, as the one
# suspected leak, and never calls the temporary's segments one while
# PyTorch's view explains them.  Before: the temporary was the first
# section's "suspected leak (the allocator cache grew at every step)" and
# the kept line came last.
source "$ROOT/tests/lib.sh"
torch_real_setup
prog=$ROOT/tests/programs/torch_real_grow.py
kept=$(site_line torch_real_grow.py KEPT-LINE)
temp=$(site_line torch_real_grow.py TEMP-LINE)

torch_real_run "$prog"
expect_eq "$(grep -c '^step ' out.txt)" 3 "snapshots asked for"

# Three snapshots: the kept line is the one suspect; the temporary's row
# is there, marked as PyTorch's segments, not suspected.
"$REPORT" diff --json step0.snap step6.snap step12.snap >diff.json || fail "diff --json: exit $?"
got=$(python3 -c '
import json
d = json.load(open("diff.json"))
where = lambda f: "%s:%d" % (f["file"].rsplit("/", 1)[-1], f["line"])
print([(where(s["frames"][0]), s["bytes"], s["count"], s["suspected_leak"], s["torch_segments"]) for s in d["stacks"]])
print([(l["line"], l["bytes"], l["count"], l["suspected_leak"]) for l in d["torch_lines"]["lines"] if l["suspected_leak"]])')
expect_eq "$got" "[('torch_real_grow.py:$temp', [25165824, 50331648, 75497472], [1, 2, 3], False, True)]
[($kept, [4194304, 29360128, 54525952], [1, 7, 13], True)]" \
    "diff --json: changed stacks (the temporary's segments, no suspect); the suspected tensor line"

# The text, through both commands: the first change shown is the kept
# line, the only "suspected leak"; the temporary's segments say what they are.
for cmd in "$REPORT" "$LAUNCHER"; do
    "$cmd" diff step0.snap step6.snap step12.snap >diff.txt || fail "$cmd diff: exit $?"
    expect_eq "$(grep -m1 '^+' diff.txt)" \
        "+50,331,648 bytes (48.0 MiB): <module> (torch_real_grow.py:$kept), suspected leak (its tensors grew at every step)" \
        "$cmd diff: the first change"
    expect_eq "$(grep -c 'suspected leak' diff.txt)" 1 "$cmd diff: suspected leaks"
    expect_eq "$(grep -A3 '^+50,331,648 bytes (48.0 MiB): device memory' diff.txt | tail -1)" \
        "    #0 <module> (torch_real_grow.py:$temp) [python]" "$cmd diff: the temporary's segments' stack"
    grep -Fq "+50,331,648 bytes (48.0 MiB): device memory on device 0, held by pytorch-caching-allocator, PyTorch's cache segments (their tensors are above, by line; this stack only made the cache grow)" diff.txt ||
        fail "$cmd diff: the temporary's segments are not marked as PyTorch's"
done

# Two snapshots: the same order, and no suspect at all (growth at every
# step needs three).
"$LAUNCHER" diff step0.snap step6.snap >diff2.txt || fail "diff of two: exit $?"
expect_eq "$(grep '^+' diff2.txt | cut -d: -f1-2)" \
    "+25,165,824 bytes (24.0 MiB): <module> (torch_real_grow.py
+25,165,824 bytes (24.0 MiB): device memory on device 0, held by pytorch-caching-allocator, PyTorch's cache segments (their tensors are above, by line; this stack only made the cache grow)" \
    "diff of two: the changes, in order"
expect_eq "$(grep -m1 '^+' diff2.txt)" "+25,165,824 bytes (24.0 MiB): <module> (torch_real_grow.py:$kept)" "diff of two: the first change"
expect_eq "$(grep -c 'suspected leak' diff2.txt || true)" 0 "diff of two: suspected leaks"
