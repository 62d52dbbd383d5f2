#!/usr/bin/env bash
# A stack is labelled by the frame a user cares about, the first outside
# known allocator wrappers (report/model/user_frame.h), wherever one line
# names it: the HTML page's tables and growth chart (as its script computes
# them from stacks and stack_labels) and the text's one-line frames (PEAK's
# "allocations just before it").  Before (issue 35), every row behind a
# wrapper read `buf (rankapp.c:4)` or `malloc (_allocator.py:106)`.  JSON
# gives the label's place in each stack (label_frame).
#   - PyTorch's allocator: the stand-in torch (tests/programs/torch_grow.py)
#     grows by a 12 MiB segment a step, made inside torch/cuda/; the growth
#     row is named by the program's line.
#   - The program's own wrapper (tests/programs/wrapped_alloc.c): buf()
#     makes every allocation; --alloc-fn buf names the rows by its callers,
#     in the reporter and through `gpuleak check` and `gpuleak html`.
source "$ROOT/tests/lib.sh"
export LD_LIBRARY_PATH=$FAKECUDA
[ -z "$GL_SAN" ] || export GPULEAK_LIB=$LIBGPULEAK

# labels PAGE: "growth ROW-LABEL" per growth row, then "leaks ROW-LABEL"
# per leak row, each as the page's topFrame (report/render/html/js/1_base.js)
# names a stack.
labels() {
    python3 - "$1" <<'PY'
import json, os, re, sys
d = json.loads(re.search(r'id="gl-data">(.*?)</script>', open(sys.argv[1]).read(), re.S).group(1))
def frame_text(i):
    f = d["frames"][i]
    if not f[1] and not f[2] and not f[3]:
        return f[0]
    where = (os.path.basename(f[1]) + (":%d" % f[2] if f[2] else "")) if f[1] else f[3]
    return f[0] + (" (" + where + ")" if where else "")
def label(si):
    st = d["stacks"][si]
    at = d.get("stack_labels", [0] * len(d["stacks"]))[si]
    return frame_text(st[at]) if st else "(no stack captured)"
for r in (d["growth"] or {}).get("rows", []):
    print("growth", r["growth"], "suspected" if r["suspected_leak"] else "", label(r["stack"]))
for r in d["tables"]["leaks"]:
    print("leaks", r["bytes"], label(r["stack"]))
PY
}

# PyTorch's allocator (the stand-in's, without its view: its segments are
# then leaks of the program's, by their stacks).
torch_standin_setup
GPULEAK_TORCH=0 traced python3 "$ROOT/tests/programs/torch_grow.py" 3 || fail "torch_grow: exit $?"
"$REPORT" --html grow.html step0.snap step1.snap step2.snap || fail "--html over the steps"
expect_eq "$(labels grow.html | grep '^growth')" \
    "growth 25165824 suspected grow (torch_grow.py:$(site_line torch_grow.py KEPT-LINE))" "the growth row's label"

# The program's own wrapper.
w=wrapped_alloc.c
GPULEAK_OUTPUT=w.snap traced "$TPROG/wrapped_alloc" >/dev/null || fail "wrapped_alloc: exit $?"
"$REPORT" --html plain.html w.snap
expect_eq "$(labels plain.html)" "leaks 2097152 buf ($w:$(site_line $w WRAPPER-LINE))
leaks 1048576 buf ($w:$(site_line $w WRAPPER-LINE))" "without --alloc-fn: the wrapper"
"$REPORT" --alloc-fn buf --html named.html w.snap
want="leaks 2097152 grads ($w:$(site_line $w GRADS-LINE))
leaks 1048576 weights ($w:$(site_line $w WEIGHTS-LINE))"
expect_eq "$(labels named.html)" "$want" "--alloc-fn buf: its callers"
"$LAUNCHER" html --alloc-fn 'b?f' launcher.html w.snap
expect_eq "$(labels launcher.html)" "$want" "gpuleak html --alloc-fn 'b?f' (a glob)"
"$REPORT" --alloc-fn buf --sections peak w.snap | grep -A2 '^    allocations just before it' | tail -2 |
    sed 's/ at [0-9.]* s (seq [0-9]*)//' >peak.txt
cat >want.txt <<EOT
        2,097,152 bytes (2.0 MiB) device: grads ($w:$(site_line $w GRADS-LINE))
        1,048,576 bytes (1.0 MiB) device: weights ($w:$(site_line $w WEIGHTS-LINE))
EOT
diff want.txt peak.txt || fail "PEAK's one-line frames"
# JSON: label_frame is the label's place in frames.
"$REPORT" --alloc-fn buf --json w.snap >named.json
expect_eq "$(jget named.json '[(l["frames"][l["label_frame"]]["function"], l["label_frame"]) for l in d["leaks"]]')" \
    '[["grads", 1], ["weights", 1]]' "JSON label_frame with --alloc-fn buf"
"$REPORT" --json w.snap >plain.json
expect_eq "$(jget plain.json '[l["label_frame"] for l in d["leaks"]]')" '[0, 0]' "JSON label_frame without it"
# The stacks themselves keep the wrapper: only the label moves.
"$REPORT" --alloc-fn buf --sections leaks w.snap | grep -m1 '^    #0' >top.txt
expect_eq "$(cat top.txt)" "    #0 buf ($w:$(site_line $w WRAPPER-LINE)) [wrapped_alloc]" "the stack's first frame"
rc=0; "$LAUNCHER" check --alloc-fn buf --error-exitcode 9 -- "$TPROG/wrapped_alloc" >/dev/null 2>err.txt || rc=$?
expect_eq "$rc" 9 "check --alloc-fn passes through"
rc=0; "$REPORT" --alloc-fn '' w.snap >/dev/null 2>err.txt || rc=$?
expect_eq "$rc:$(cat err.txt)" \
    "2:gpuleak-report: --alloc-fn needs a function name (a glob: 'my_alloc', 'Arena::*') (try --help)" "--alloc-fn ''"
echo ok
