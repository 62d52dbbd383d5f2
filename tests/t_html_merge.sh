# The ranks of one job in HTML (issue 35 item 4): `gpuleak-report --html
# OUT merge ...` (and `gpuleak merge --html OUT ...`) draws the ranks side
# by side, their imbalance and the leak that is on some ranks only; diff and
# --html over snapshots of several processes refuse to draw them as a time
# series (one line, status 2, no page).  Four ranks of
# tests/programs/rank_leaks.c on fakecuda's two devices, rank from RANK,
# device LOCAL_RANK = rank % 2: rank r keeps 1 MiB at keep_all(), peaks at
# (r + 2) MiB in work(), and ranks 1 and 3 keep 2 MiB more at leak_some().
# The page is then opened in headless Chromium when there is one.
source "$ROOT/tests/lib.sh"
MiB=1048576
mkdir m
for r in 0 1 2 3; do
    RANK=$r LOCAL_RANK=$((r % 2)) GPULEAK_OUTPUT=m/r$r.snap LD_PRELOAD=$LIBGPULEAK \
        "$FAKECUDA/fakecuda-run" --devices 2 -- "$TPROG/rank_leaks" 1,3 || fail "rank $r: status $?"
done
snaps=(m/r0.snap m/r1.snap m/r2.snap m/r3.snap)
"$REPORT" --json merge "${snaps[@]}" >m.json || fail "merge --json: status $?"
rc=0; "$REPORT" --html m.html merge "${snaps[@]}" >out.txt 2>err.txt || rc=$?
expect_eq "$rc:$(cat out.txt err.txt)" "0:" "merge --html: status and nothing printed"
expect_eq "$(stat -c %a m.html)" 600 "the page's mode"
rc=0; "$REPORT" --html m5.html --error-exitcode 5 merge "${snaps[@]}" || rc=$?
expect_eq "$rc" 5 "merge --html --error-exitcode: ranks with leaks"
cmp -s m.html m5.html || fail "--error-exitcode changed the page"
# the launcher's spellings: the same page
"$LAUNCHER" merge --html g1.html "${snaps[@]}" || fail "gpuleak merge --html: status $?"
"$LAUNCHER" html g2.html merge "${snaps[@]}" || fail "gpuleak html OUT merge: status $?"
cmp -s m.html g1.html && cmp -s m.html g2.html || fail "the launcher's merge pages differ"
grep -q "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'" m.html || fail "no CSP"
expect_eq "$(grep -o '<script' m.html | wc -l)" 2 "the data and the code scripts only"

ks=$(site_line rank_leaks.c 'RANK-SITE: keep_all')
ls=$(site_line rank_leaks.c 'RANK-SITE: leak_some')
python3 - m.html m.json "$ks" "$ls" <<'PY' || fail "the page's data"
import json, re, sys
s = open(sys.argv[1], encoding="utf-8").read()
p = json.loads(re.search(r'<script type="application/json" id="gl-data">(.*?)</script>', s, re.S).group(1))
j = json.load(open(sys.argv[2]))
keep_line, leak_line = int(sys.argv[3]), int(sys.argv[4])
MiB = 1 << 20
def eq(a, b, what):
    if a != b:
        sys.exit("FAIL: %s: got %r, expected %r" % (what, a, b))
eq((p["format"], p["page"]), ("gpuleak-html", "merge"), "page")
M = p["merge"]
eq([(r["rank"], r["devices"], r["live_bytes"], r["leaked_bytes"], r["peak_bytes"], r["peak_device"]) for r in M["ranks"]],
   [(0, [0], MiB, MiB, 2 * MiB, 0), (1, [1], 3 * MiB, 3 * MiB, 3 * MiB, 1),
    (2, [0], MiB, MiB, 4 * MiB, 0), (3, [1], 3 * MiB, 3 * MiB, 5 * MiB, 1)], "ranks side by side")
eq([(r["pid"], r["host"], r["live_bytes"], r["peak_bytes"]) for r in M["ranks"]],
   [(r["pid"], r["host"], r["live_bytes"], r["peak_bytes"]) for r in j["ranks"]], "the JSON merge's figures")
eq([(b["measure"], b["max"], b["mean"], round(b["ratio"], 4), b["rank"]) for b in M["imbalance"]],
   [("peak_bytes", 5 * MiB, 7 * MiB // 2, round(5 / 3.5, 4), 3), ("live_bytes", 3 * MiB, 2 * MiB, 1.5, 1),
    ("leaked_bytes", 3 * MiB, 2 * MiB, 1.5, 1)], "imbalance")
eq(M["largest_peak"], 3, "the largest peak's snapshot")
def frame(r):
    f = p["frames"][p["stacks"][r["stack"]][0]]
    return "%s %s:%d" % (f[0], f[1].rsplit("/", 1)[-1], f[2])
eq([(frame(x), x["bytes"], x["some_ranks"], [(o[1], o[2], o[3]) for o in x["on"]], x["not_on"]) for x in M["leak_sites"]],
   [("leak_some rank_leaks.c:%d" % leak_line, 4 * MiB, True, [(1, 2 * MiB, 1), (3, 2 * MiB, 1)], [0, 2]),
    ("keep_all rank_leaks.c:%d" % keep_line, 4 * MiB, False, [(r, MiB, 1) for r in range(4)], [])], "leak sites")
eq([(frame(x), x["bytes"], [o[1] for o in x["on"]], x["not_on"]) for x in M["live_some_ranks"]],
   [("leak_some rank_leaks.c:%d" % leak_line, 4 * MiB, [1, 3], [0, 2])], "live on some ranks only")
PY

# snapshots of different processes are never a time series: diff and
# --html over them refuse, naming them, and say what compares them
pids=$(jget m.json '", ".join("rank %d pid %d on %s" % (r["rank"], r["pid"], r["host"]) for r in d["ranks"])')
rc=0; "$REPORT" diff "${snaps[@]}" >out.txt 2>err.txt || rc=$?
expect_eq "$rc:$(cat err.txt):$(wc -c <out.txt)" "2:gpuleak-report: diff: the snapshots come from 4 different processes ($pids); growth is measured between snapshots of one process: compare processes with 'merge', or two runs of one program stack by stack with 'diff --across-runs':0" "diff of four ranks"
rc=0; "$REPORT" --html z.html "${snaps[@]}" 2>err.txt || rc=$?
expect_eq "$rc:$(cat err.txt)" "2:gpuleak-report: --html: the snapshots come from 4 different processes ($pids); growth is measured between snapshots of one process: compare processes with '--html OUT.html merge'" "--html of four ranks"
[ ! -e z.html ] || fail "a growth page was written for four ranks"

# the page in a browser: drawn without errors, the same numbers
if [ -n "$GL_SAN" ] || ! { command -v chromium >/dev/null || command -v chromium-browser >/dev/null || [ -n "${CHROMIUM:-}" ]; }; then
    echo "note: no Chromium here (or a sanitizer build): the page was not opened in a browser"
    echo ok
    exit 0
fi
python3 "$ROOT/tests/browser/check_merge.py" m.html drawn.json || fail "the page in Chromium"
python3 - drawn.json "$ls" <<'PY' || fail "the page as drawn"
import json, sys
d = json.load(open(sys.argv[1]))
line = sys.argv[2]
MiB = 1 << 20
def eq(a, b, what):
    if a != b:
        sys.exit("FAIL: %s: got %r, expected %r" % (what, a, b))
eq((d["errors"], d["requests"]), ([], []), "console errors, requests")
eq([c[:4] for c in d["cards"]], [["peak_bytes", "3", "1.43", str(5 * MiB)], ["live_bytes", "1", "1.50", str(3 * MiB)],
                                 ["leaked_bytes", "1", "1.50", str(3 * MiB)]], "imbalance cards")
eq(d["cards"][0][4], "1.43\u00d7peak imbalance: rank 3 highest, 5.0 MiB against a mean of 3.5 MiB (largest / mean)", "peak card")
eq(d["some"], "1", "sites on some ranks only")
eq(d["tables"]["some-ranks-table"],
   ["4,194,304 | 1, 3 | 0, 2 | rank 1 2.0 MiB, rank 3 2.0 MiB | device | leak_some (rank_leaks.c:%s)" % line],
   "the leak on some ranks only")
eq([r.split(" | ")[:7] for r in d["tables"]["ranks-table"]],
   [["0", r0[1], r0[2], "0", "1,048,576", "1,048,576", "2.0 MiB on device 0"] for r0 in [d["tables"]["ranks-table"][0].split(" | ")]] +
   [["1", r1[1], r1[2], "1", "3,145,728", "3,145,728", "3.0 MiB on device 1"] for r1 in [d["tables"]["ranks-table"][1].split(" | ")]] +
   [["2", r2[1], r2[2], "0", "1,048,576", "1,048,576", "4.0 MiB on device 0"] for r2 in [d["tables"]["ranks-table"][2].split(" | ")]] +
   [["3", r3[1], r3[2], "1", "3,145,728", "3,145,728", "5.0 MiB on device 1"] for r3 in [d["tables"]["ranks-table"][3].split(" | ")]],
   "the ranks table")
eq(d["bars"], [[r, m, b] for r, bs in enumerate([(2, 1, 1), (3, 3, 3), (4, 1, 1), (5, 3, 3)])
               for m, b in zip(("peak_bytes", "live_bytes", "leaked_bytes"), (x * MiB for x in bs))], "bars")
if not d["stack"] or not d["stack"].startswith("#0 leak_some (") or ("rank_leaks.c:%s" % line) not in d["stack"]:
    sys.exit("FAIL: the row's stack: %r" % d["stack"])
PY
echo ok
