# PyTorch's C++ frames, read as one line (issue 45, item 5), on real
# PyTorch 2.14.1 and fakecuda (tests/t_torch_real.sh says how torch runs
# here).  torch_real_internals.py runs a Linear layer's backward, whose
# cuBLAS workspace is a cudaMalloc made on autograd's engine thread: 21
# frames in PyTorch's libraries (libc10_cuda, libtorch_cuda, libtorch_cpu,
# libtorch_python) above std::thread's start in libstdc++.  The text
# report, the diff and the HTML page show the 21 as "PyTorch internals, 21
# frames" (its flame graphs as one node), --full-stacks shows them one by
# one, and the segment is named by PyTorch's outermost frame (its autograd
# engine), not by a frame of cuBLAS's or libstdc++'s.
source "$ROOT/tests/lib.sh"
torch_real_setup
prog=$ROOT/tests/programs/torch_real_internals.py

"$FAKECUDA/fakecuda-run" --devices 1 -- "$LAUNCHER" run --quiet -- "$PY" "$prog" >out.txt 2>err.txt ||
    fail "run exited $?: $(tail -3 err.txt)"
if grep -q '^fakecuda: ' err.txt; then fail "$(grep '^fakecuda: ' err.txt)"; fi

engine='torch::autograd::python::PythonEngine::thread_init(int, std::shared_ptr<torch::autograd::ReadyQueue> const&, bool)'
# frames FILE: the frame lines of the stack that follows the line "allocated
# at ... (seq 4)" (the backward's cudaMalloc), the libstdc++ offset as 0xOFF
frames() {
    awk '/\(seq 4\)$/ { on = 1; next } on && !/^ +#/ { exit } on' "$1" | sed 's/\(libstdc++\.so\.6+\)0x[0-9a-f]*/\10xOFF/'
}
"$REPORT" after.snap >r.txt || fail "report: exit $?"
expect_eq "$(frames r.txt)" "    #0-#20 PyTorch internals, 21 frames
    #21 libstdc++.so.6+0xOFF" "text: PyTorch's frames as one line"
expect_eq "$(grep -F ": 33,554,432 bytes (32.0 MiB) on device 0, cudaMalloc from $engine" r.txt | grep -c '^segment 0x')" 1 \
    "the segment's label: $(grep '^segment' r.txt)"

"$REPORT" --full-stacks after.snap >full.txt || fail "report --full-stacks: exit $?"
frames full.txt >full.frames
expect_eq "$(grep -c '^    #[0-9]* ' full.frames)" 22 "--full-stacks: every frame"
expect_eq "$(sed -n '1s/(.*//p; 21s/ \[.*//p; 22p' full.frames)" \
    "    #0 c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::alloc_block
    #20 $engine
    #21 libstdc++.so.6+0xOFF" "--full-stacks: the allocator innermost, the engine outermost"

# diff: the segment that the backward made, with the same stack.
"$REPORT" diff before.snap after.snap >d.txt || fail "diff: exit $?"
expect_eq "$(sed -n '/^CHANGES BY STACK/,/^$/p' d.txt | grep '^    #' | sed 's/\(libstdc++\.so\.6+\)0x[0-9a-f]*/\10xOFF/')" \
    "    #0-#20 PyTorch internals, 21 frames
    #21 libstdc++.so.6+0xOFF" "diff: PyTorch's frames as one line"

# HTML: each frame of PyTorch's libraries is flagged (4) for the page to
# fold, the stack is labelled by the engine's frame, and --full-stacks
# tells the page to show them all.
"$REPORT" --html page.html before.snap after.snap || fail "--html: exit $?"
"$REPORT" --full-stacks --html full.html before.snap after.snap || fail "--full-stacks --html: exit $?"
page() {
    html_data "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for i, st in enumerate(d["stacks"]):
    flags = [d["frames"][f][4] & 4 for f in st]
    if any(flags):
        print(len(st), sum(1 for f in flags if f), d["frames"][st[d["stack_labels"][i]]][0], d["full_stacks"])'
}
expect_eq "$(page page.html)" "22 21 $engine False" "HTML: the flagged frames, the label"
expect_eq "$(page full.html)" "22 21 $engine True" "HTML --full-stacks"

# The page's flame graphs fold the run as the text does: the peak's path
# through the backward's segment reads "PyTorch internals, 21 frames" (one
# node, the engine thread's libstdc++ frame above it), no node of it is a
# frame of PyTorch's libraries; --full-stacks has the 21 frames, one node
# each, and no folded node.
flame_runs() {  # flame_runs PAGE: per graph, the folded nodes and the nodes of PyTorch's frames
    html_data "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for g in ("leaks", "peak"):
    folded, torch = [], 0
    def walk(n):
        global torch
        fr = d["frames"][n[0]]
        if fr[0].startswith("PyTorch internals"):
            folded.append("%s %d" % (fr[0], n[1]))
        torch += 1 if fr[4] & 4 else 0
        for k in (n[2] if len(n) > 2 else []):
            walk(k)
    walk(d["flame"][g])
    print(g, folded, torch)'
}
expect_eq "$(flame_runs page.html)" "leaks [] 0
peak ['PyTorch internals, 21 frames 33554432'] 0" "HTML flame graphs: PyTorch's frames as one node"
expect_eq "$(flame_runs full.html)" "leaks [] 0
peak [] 21" "HTML flame graphs --full-stacks: every frame"

# What the page draws from that data: its stackLines() (js/1_base.js), run by
# node on the page's data, folds the run as the text does.
if command -v node >/dev/null; then
    drawn() {
        html_data "$1" >"$1.json"
        node -e '
const fs = require("fs");
const src = fs.readFileSync(process.argv[1], "utf8");
function grab(name) {  // a function of the page, one line or up to its closing brace
    const i = src.indexOf("  function " + name + "(");
    const eol = src.indexOf("\n", i);
    return src.slice(i, eol).trimEnd().endsWith("}") ? src.slice(i, eol) : src.slice(i, src.indexOf("\n  }\n", i) + 4);
}
const D = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
eval(grab("base") + grab("frameText") + grab("stackLines"));
D.stacks.forEach(function (st, i) {
    if (st.some(function (f) { return D.frames[f][4] & 4; }))
        console.log(stackLines(i).map(function (l) { return l.replace(/^(#\d+ [^ (]*).*$/, "$1"); }).join("\n"));
});' "$ROOT/report/render/html/js/1_base.js" "$1.json" | sed 's/\(libstdc++\.so\.6+\)0x[0-9a-f]*/\10xOFF/'
    }
    expect_eq "$(drawn page.html)" "#0-#20 PyTorch internals, 21 frames
#21 libstdc++.so.6+0xOFF" "the page's stack: PyTorch's frames as one line"
    expect_eq "$(drawn full.html | wc -l) $(drawn full.html | sed -n 1p)" \
        "22 #0 c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::alloc_block" "the page with --full-stacks"
fi
