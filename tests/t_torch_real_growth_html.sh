# Issue 45, item 1: PyTorch's leaks by growth on the HTML page, on real
# torch 2.14.1 under fakecuda (tests/t_torch_real.sh says how torch runs
# here).  tests/programs/torch_real_growth.py (see t_torch_real_growth.sh)
# trains 5 steps; `leak` keeps 131,072 bytes a step at ACT-LINE and 65,536
# at LOSS-LINE.  The exit snapshot's page:
#  - embeds the JSON report's "leaks_by_growth" (both lines, steps 2 to 5);
#  - draws them first: its first card says "leaked by growth: 196,608
#    bytes/step at 2 lines, steps 2 to 5", and in Tables their table comes
#    before the leaks by stack, one row a line with its bytes per step;
#    "No leaks" is nowhere on it; the still-reachable lines have a card and
#    a table, the leaks' and the temporary's lines not among them, from
#    PyTorch's view at exit (TORCH_BLOCKS), not the last step's lines:
#    with the leaks' lines they are all PyTorch held then;
#  - `clean`: no leak by growth, no such card or table, and "No leaks".
# diff --across-runs of the two exit snapshots (clean, then leak) has LEAKED BY GROWTH,
# the last snapshot's (both lines), text and JSON; reversed, "No leak by
# growth."; merge lists the leak run's leaks by growth under its rank's
# line, and each rank's in its JSON.
source "$ROOT/tests/lib.sh"
torch_real_setup
prog=$ROOT/tests/programs/torch_real_growth.py
act=$(site_line torch_real_growth.py ACT-LINE)
lossl=$(site_line torch_real_growth.py LOSS-LINE)
temp=$(site_line torch_real_growth.py TEMP-LINE)

page_of() {  # page_of MODE: runs the program, MODE.html of its exit snapshot
    mkdir "$1"
    (cd "$1" && "$FAKECUDA/fakecuda-run" --devices 1 -- "$LAUNCHER" run --quiet -- "$PY" "$prog" "$1" >out.txt 2>err.txt) ||
        fail "$1: run exited $?: $(tail -3 "$1/err.txt")"
    if grep -q '^fakecuda: ' "$1/err.txt"; then fail "$1: $(grep '^fakecuda: ' "$1/err.txt")"; fi
    "$REPORT" --html "$1.html" "$1"/gpuleak.*.snap || fail "$1: --html exited $?"
    html_data "$1.html" >"$1.data.json"
}
page_of leak
page_of clean

expect_eq "$(jget leak.data.json '[d["leaks_by_growth"]["bytes_per_step"]] + [(l["file"].rsplit("/", 1)[-1], l["line"], l["bytes_per_step"], l["from_step"], l["to_step"]) for l in d["leaks_by_growth"]["leaks"]]')" \
    "[196608, [\"torch_real_growth.py\", $act, 131072, 2, 5], [\"torch_real_growth.py\", $lossl, 65536, 2, 5]]" \
    "leak: the page's data"
expect_eq "$(jget leak.data.json '[l["line"] for l in d["leaks_by_growth"]["still_reachable"]["lines"] if l["line"] in ('"$act, $lossl, $temp"')] + [len(d["leaks_by_growth"]["still_reachable"]["lines"]) > 0]')" \
    "[true]" "leak: still reachable, without the leaks or the temporary"
# Still reachable at exit: the exit snapshot's live tensors by line
# (TORCH_BLOCKS, the page's "torch" lines), the two leaks' lines left out,
# not the last step's lines; with the leaks' lines they make up all that
# PyTorch held at exit (a line with no Python line, frame -1, as file ""
# and line 0).
expect_eq "$(jget leak.data.json '[d["leaks_by_growth"]["still_reachable"]["at_exit"], [(l["file"], l["line"], l["bytes"], l["count"]) for l in d["leaks_by_growth"]["still_reachable"]["lines"]] == [(d["frames"][l["frame"]][1] if l["frame"] >= 0 else "", d["frames"][l["frame"]][2] if l["frame"] >= 0 else 0, l["bytes"], l["count"]) for l in d["torch"]["lines"] if l["frame"] < 0 or d["frames"][l["frame"]][2] not in ('"$act, $lossl"')], d["leaks_by_growth"]["still_reachable"]["bytes"] + sum(l["bytes"] for l in d["torch"]["lines"] if l["frame"] >= 0 and d["frames"][l["frame"]][2] in ('"$act, $lossl"')) == d["torch"]["allocated_bytes"], d["torch"]["lines_total"] == len(d["torch"]["lines"])]')" \
    "[true, true, true, true]" "leak: still reachable at exit, from PyTorch's view at exit"
"$REPORT" --sections leaks leak/gpuleak.*.snap >leaks.txt || fail "report: exit $?"
expect_eq "$(grep -c '^Still reachable at exit (live tensors that did not grow' leaks.txt)" 1 "leak: the text's still reachable at exit"
expect_eq "$(jget clean.data.json '[d["leaks_by_growth"]["judged"], d["leaks_by_growth"]["leaks"]]')" "[true, []]" \
    "clean: judged, no leak by growth"

# diff and merge (docs/reporter.md, "Leaks by growth in diff and merge"):
# diff judges the last snapshot's steps, merge each rank's.
leak_snap=$(ls leak/gpuleak.*.snap) clean_snap=$(ls clean/gpuleak.*.snap)
"$REPORT" diff --across-runs "$clean_snap" "$leak_snap" >d.txt 2>err.txt || fail "diff: exit $?: $(head -3 err.txt)"
expect_eq "$(sed -n '/^LEAKED BY GROWTH$/,/^$/p' d.txt | sed -n '2,3p;6p')" \
"PyTorch's steps as the last snapshot [2] carries them:
Leaked by growth: live tensors grew at each of the last 3 steps (steps 2 to 5):
    65,536 bytes/step (64.0 KiB): <module> (torch_real_growth.py:$lossl)" "diff: the last snapshot's leaks by growth"
expect_eq "$(grep -c "131,072 bytes/step (128.0 KiB): <module> (torch_real_growth.py:$act)" d.txt)" 1 "diff: the activation's line"
"$REPORT" diff --across-runs "$leak_snap" "$clean_snap" >dr.txt 2>err.txt || fail "diff (reversed): exit $?: $(head -3 err.txt)"
expect_eq "$(sed -n '/^LEAKED BY GROWTH$/,/^$/p' dr.txt | sed -n 3p)" "No leak by growth." "diff: the clean run last"
"$REPORT" --json diff --across-runs "$clean_snap" "$leak_snap" >d.json 2>err.txt || fail "diff --json: exit $?: $(head -3 err.txt)"
expect_eq "$(jget d.json '[d["leaks_by_growth"]["bytes_per_step"]] + [(l["line"], l["bytes_per_step"]) for l in d["leaks_by_growth"]["leaks"]]')" \
    "[196608, [$act, 131072], [$lossl, 65536]]" "diff --json"
"$REPORT" merge "$clean_snap" "$leak_snap" >m.txt 2>err.txt || fail "merge: exit $?: $(head -3 err.txt)"
expect_eq "$(sed -n '/^BY RANK$/,/^$/p' m.txt | grep -c '^no rank')" 2 "merge: both runs"
expect_eq "$(grep -A2 -F "$leak_snap): live" m.txt | sed -n 2,3p)" \
"    leaked by growth: 131,072 bytes/step (128.0 KiB): <module> (torch_real_growth.py:$act), steps 2 to 5
    leaked by growth: 65,536 bytes/step (64.0 KiB): <module> (torch_real_growth.py:$lossl), steps 2 to 5" \
    "merge: the leak run's rank lists its leaks"
expect_eq "$(grep -A1 -F "$clean_snap): live" m.txt | grep -c '^    leaked by growth')" 0 "merge: none under the clean run's rank"
"$REPORT" --json merge "$clean_snap" "$leak_snap" >m.json 2>err.txt || fail "merge --json: exit $?: $(head -3 err.txt)"
expect_eq "$(jget m.json 'sorted([(d["snapshots"][r["snapshot"]]["path"].split("/")[0], [(l["line"], l["bytes_per_step"]) for l in r["leaks_by_growth"]]) for r in d["ranks"]])')" \
    "[[\"clean\", []], [\"leak\", [[$act, 131072], [$lossl, 65536]]]]" "merge --json: each rank's leaks by growth"

skip_if '! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null && [ -z "${CHROMIUM:-}" ]' \
    "chromium is not installed (scripts/install-deps.sh installs it)"
drawn() {  # drawn MODE: what the page shows, as JSON in MODE.drawn.json
    python3 "$ROOT/tests/browser/eval_page.py" "$1.html" "$1.drawn.json" "(function () {
  function txt(s) { var e = document.querySelector(s); return e ? e.textContent : null; }
  function rows(id) { return Array.prototype.map.call(document.querySelectorAll('#' + id + ' tbody tr.row'),
    function (tr) { return Array.prototype.map.call(tr.children, function (td) { return td.textContent; }); }); }
  var heads = Array.prototype.map.call(document.querySelectorAll('#tables h3'), function (h) { return h.textContent; });
  return {first_card: document.querySelector('.cards .card').id, growth_card: txt('#card-growth .l'),
    growth_rows: rows('growth-leaks-table'), heads: heads.filter(function (h) { return /^(Leaked by growth|Leaks:|Still reachable)/.test(h); })
      .map(function (h) { return h.split(':')[0]; }),
    no_leaks: document.body.innerText.indexOf('No leaks') >= 0, reachable_card: !!document.querySelector('#card-reachable'),
    reachable_rows: rows('reachable-table').length};
})()" || fail "$1: the page in Chromium"
    expect_eq "$(jget "$1.drawn.json" '[d["errors"], d["requests"]]')" "[[], []]" "$1: console errors, requests"
}
drawn leak
expect_eq "$(jget leak.drawn.json '[d["value"][k] for k in ("first_card", "growth_card", "heads", "no_leaks", "reachable_card")] + [d["value"]["reachable_rows"] > 0]')" \
    '["card-growth", "leaked by growth: 196,608 bytes/step at 2 lines, steps 2 to 5", ["Leaked by growth", "Leaks", "Still reachable at exit"], false, true, true]' \
    "leak: the page's card, headings, no 'No leaks'"
expect_eq "$(jget leak.drawn.json '[(r[0], r[2], r[4], r[7]) for r in d["value"]["growth_rows"]]')" \
    "[[\"131,072\", \"2\", \"5\", \"<module> (torch_real_growth.py:$act)\"], [\"65,536\", \"2\", \"5\", \"<module> (torch_real_growth.py:$lossl)\"]]" \
    "leak: the leaks by growth's table"
drawn clean
expect_eq "$(jget clean.drawn.json '[d["value"]["growth_card"], d["value"]["growth_rows"], d["value"]["heads"][:1], d["value"]["no_leaks"]]')" \
    '[null, [], ["Leaks"], true]' "clean: no leak by growth, 'No leaks'"
