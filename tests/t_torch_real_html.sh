# Real PyTorch 2.14.1 and the HTML page (issue 35, "the HTML page has
# PyTorch's view"), on fakecuda (tests/t_torch_real.sh says how torch runs
# here).  torch_real_grow.py keeps a 4 MiB tensor per step at KEPT-LINE, in
# segments its 24 MiB temporary at TEMP-LINE made; its exit snapshot
# carries PyTorch's last view.  The page of the exit snapshot names the
# kept line where it said "Leaked memory: Nothing to show": a card, a
# flame graph and a table of the live tensors by line, and each segment's
# tensors by line on the address map.  The page of the three step
# snapshots draws the growth by tensor line, the kept line its one suspect,
# and marks the temporary's segments as PyTorch's.  The embedded data is
# checked exactly; with Chromium (tests/t_html_browser.sh), what the page
# draws too.
source "$ROOT/tests/lib.sh"
torch_real_setup
prog=$ROOT/tests/programs/torch_real_grow.py
kept=$(site_line torch_real_grow.py KEPT-LINE)
temp=$(site_line torch_real_grow.py TEMP-LINE)
first=$(site_line torch_real_grow.py FIRST-LINE)

torch_real_run "$prog"
exits=(gpuleak.*.snap)
expect_eq "${#exits[@]}" 1 "exit snapshots"
"$REPORT" --html exit.html "${exits[0]}" || fail "--html of the exit snapshot: exit $?"
"$REPORT" --json "${exits[0]}" >exit.json || fail "--json of the exit snapshot: exit $?"
"$REPORT" --html grow.html step0.snap step6.snap step12.snap || fail "--html of the steps: exit $?"

# The page's data: PyTorch's view as the JSON report has it.
html_data exit.html >exit.data
html_data grow.html >grow.data
got=$(python3 - <<'PY'
import json
d = json.load(open("exit.data")); r = json.load(open("exit.json"))
def where(i):
    f = d["frames"][i] if i >= 0 else None
    return "%s:%d" % (f[1].rsplit("/", 1)[-1], f[2]) if f else None
t = d["torch"]
print(t["status"], t["allocated_bytes"], t["reserved_bytes"], t["tensor_count"], t["segment_count"])
print([(where(l["frame"]), l["bytes"], l["count"]) for l in t["lines"]])
print([(g["size"], g["allocated_bytes"], g["allocated_count"], g["cached_bytes"],
        [(where(l["frame"]), l["bytes"], l["count"]) for l in g["lines"]], where(d["stacks"][g["alloc_stack"]][0]))
       for g in t["segments"]])
want = [(int(g["address"]), g["size"], g["allocated_bytes"]) for g in r["torch"]["segments"]]
print([(int(g["address"], 16), g["size"], g["allocated_bytes"]) for g in t["segments"]] == want)
g = json.load(open("grow.data"))["growth"]
gd = json.load(open("grow.data"))
def gwhere(i):
    f = gd["frames"][i]
    return "%s:%d" % (f[1].rsplit("/", 1)[-1], f[2])
print([(gwhere(x["frame"]), x["bytes"], x["count"], x["suspected_leak"]) for x in g["torch"]["rows"]])
print([(gwhere(gd["stacks"][x["stack"]][0]), x["bytes"], x["suspected_leak"], x["torch_segments"]) for x in g["rows"]])
PY
) || fail "reading the pages' data"
MiB=1048576
expect_eq "$got" "answered 54788096 98566144 14 5
[('torch_real_grow.py:$kept', 54525952, 13), ('torch_real_grow.py:$first', 262144, 1)]
[($((24 * MiB)), $((24 * MiB)), 6, 0, [('torch_real_grow.py:$kept', $((24 * MiB)), 6)], 'torch_real_grow.py:$temp'), \
($((20 * MiB)), $((20 * MiB)), 5, 0, [('torch_real_grow.py:$kept', $((20 * MiB)), 5)], 'torch_real_grow.py:$kept'), \
($((24 * MiB)), $((8 * MiB)), 2, $((16 * MiB)), [('torch_real_grow.py:$kept', $((8 * MiB)), 2)], 'torch_real_grow.py:$temp'), \
($((2 * MiB)), 262144, 1, 1835008, [('torch_real_grow.py:$first', 262144, 1)], 'torch_real_grow.py:$first'), \
($((24 * MiB)), 0, 0, $((24 * MiB)), [], 'torch_real_grow.py:$temp')]
True
[('torch_real_grow.py:$kept', [4194304, 29360128, 54525952], [1, 7, 13], True)]
[('torch_real_grow.py:$temp', [25165824, 50331648, 75497472], False, True)]" \
    "the pages' data: PyTorch's totals, its tensor lines, its segments (as the JSON report's), growth by line, the segments' row"

skip_if '! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null && [ -z "${CHROMIUM:-}" ]' \
    "chromium is not installed (scripts/install-deps.sh installs it): the pages' data was checked, not their drawing"
check=$ROOT/tests/browser/check_html.py
python3 "$check" exit.html exit.json >/dev/null || fail "the exit snapshot's page (check_html.py)"
"$REPORT" --json step12.snap >step12.json && "$REPORT" --json diff step0.snap step6.snap step12.snap >grow-diff.json ||
    fail "--json of the steps"
python3 "$check" grow.html step12.json --growth grow-diff.json >/dev/null || fail "the steps' page (check_html.py)"
python3 "$ROOT/tests/browser/torch_html.py" exit.html --hover >exit.shown || fail "torch_html.py exit.html"
python3 "$ROOT/tests/browser/torch_html.py" grow.html >grow.shown || fail "torch_html.py grow.html"
# the kept line's growth per hour (issue 45, item 8), as diff gives it
rate=$(per_hour_text "$(jget grow-diff.json '[l["bytes_per_hour"] for l in d["torch_lines"]["lines"] if l["suspected_leak"]][0]')")
got=$(python3 - <<'PY'
import json
e = json.load(open("exit.shown")); g = json.load(open("grow.shown"))
print(e["errors"], e["nothing"], e["card"])
print(e["leaks_note"])
print(e["leaks_none"])
print(e["tensor_flame"])
print(e["lines"])
m = e["map"][0]
print(m["device"], m["torch_cells"], [r[2:6] for r in m["table"]])
print(m["tip"].split("\n")[3:])
print(g["errors"], g["nothing"], g["growth_torch"], g["growth_torch_rows"], g["growth_notes"])
PY
)
expect_eq "$got" "[] 0 ['54788096', '14', '2', 'live tensors in PyTorch’s cache: 14 tensors from 2 Python lines, in 94.0 MiB reserved']
No memory outside the allocator caches. PyTorch’s cache holds 52.3 MiB in 14 tensors still alive: the suspects, by the Python line that allocated them, are in the next graph and in “PyTorch’s tensors”.
No leaks outside the allocator caches; the tensors PyTorch’s cache keeps alive are in “PyTorch’s tensors”, by line.
['54788096', ['PyTorch’s tensors 54788096', '<module> (torch_real_grow.py:$kept) 54525952', '<module> (torch_real_grow.py:$first) 262144']]
[['54,525,952', '52.0 MiB', '13', '<module> (torch_real_grow.py:$kept)'], ['262,144', '256.0 KiB', '1', '<module> (torch_real_grow.py:$first)']]
0 47 [['24.0 MiB', '24.0 MiB in 6 tensors', '0 B', '24.0 MiB in 6 tensors: <module> (torch_real_grow.py:$kept)'], \
['20.0 MiB', '20.0 MiB in 5 tensors', '0 B', '20.0 MiB in 5 tensors: <module> (torch_real_grow.py:$kept)'], \
['24.0 MiB', '8.0 MiB in 2 tensors', '16.0 MiB', '8.0 MiB in 2 tensors: <module> (torch_real_grow.py:$kept)'], \
['2.0 MiB', '256.0 KiB in 1 tensor', '1.8 MiB', '256.0 KiB in 1 tensor: <module> (torch_real_grow.py:$first)'], \
['24.0 MiB', '0 B in 0 tensors', '24.0 MiB', '']]
['PyTorch segment 0x200000000000, 2.0 MiB: 256.0 KiB in 1 tensor, 1.8 MiB cached', '  256.0 KiB in 1 tensor: <module> (torch_real_grow.py:$first)']
[] 0 ['▲ <module> (torch_real_grow.py:$kept)'] [['suspected leak', '+48.0 MiB', '$rate', '4.0 MiB', '28.0 MiB', '52.0 MiB', '1', '7', '13', '<module> (torch_real_grow.py:$kept)']] [['', 'PyTorch’s segments: their tensors are above']]" \
    "what the pages draw: the card, the leaks' note, the tensors' flame graph and table, the address map, the growth by line"
