#!/usr/bin/env bash
# merge --html names a process with no rank (GL_SNAP_F_NO_RANK: no rank
# variable set) by its pid wherever the text names it so: "no rank (pid P)"
# in the "on ranks", "not on ranks" and "on each" columns, not a bare "no
# rank" nor "rank null".  Four runs of tests/programs/rank_leaks.c: RANK=0
# and RANK=1 (which keeps 2 MiB at leak_some()), and two with no RANK (one
# keeps them too: LEAKY_RANKS "0", the rank it reads without RANK).
source "$ROOT/tests/lib.sh"
run() {  # run SNAP LEAKY_RANKS [VAR=VALUE]: one process of the job
    env ${3:+"$3"} GPULEAK_OUTPUT="$1" LD_PRELOAD=$LIBGPULEAK "$FAKECUDA/fakecuda-run" -- "$TPROG/rank_leaks" "$2" ||
        fail "$1: status $?"
}
run r0.snap "" RANK=0
run r1.snap 1 RANK=1
run na.snap 0
run nb.snap ""
snaps=(r0.snap r1.snap na.snap nb.snap)
"$REPORT" --html m.html merge "${snaps[@]}" || fail "merge --html: status $?"
"$REPORT" --json merge "${snaps[@]}" >m.json || fail "merge --json: status $?"
pid_of() { "$REPORT" --json "$1" >p.json && jget p.json 'd["snapshot"]["pid"]'; }
pa=$(pid_of na.snap) && pb=$(pid_of nb.snap) && p0=$(pid_of r0.snap) && p1=$(pid_of r1.snap) || fail "the pids"
ls=$(site_line rank_leaks.c 'RANK-SITE: leak_some')
"$REPORT" merge "${snaps[@]}" >m.txt || fail "merge: status $?"
expect_eq "$(grep -m1 '^    not on:' m.txt)" "    not on: rank 0, no rank (pid $pb)" "the text's not on"

python3 - m.html "$pa" "$pb" "$p0" "$p1" <<'PY' || fail "the page's data"
import json, re, sys
s = open(sys.argv[1], encoding="utf-8").read()
M = json.loads(re.search(r'<script type="application/json" id="gl-data">(.*?)</script>', s, re.S).group(1))["merge"]
pa, pb, p0, p1 = (int(a) for a in sys.argv[2:6])
def eq(a, b, what):
    if a != b:
        sys.exit("FAIL: %s: got %r, expected %r" % (what, a, b))
x = M["live_some_ranks"][0]
eq(([(o[1], o[4]) for o in x["on"]], x["not_on"], x["not_on_pids"]), ([(1, p1), (None, pa)], [0, None], [p0, pb]), "live on some ranks: on and not on, with pids")
PY

if [ -n "$GL_SAN" ] || ! { command -v chromium >/dev/null || command -v chromium-browser >/dev/null || [ -n "${CHROMIUM:-}" ]; }; then
    echo "note: no Chromium here (or a sanitizer build): the page was not opened in a browser"
    echo ok
    exit 0
fi
python3 "$ROOT/tests/browser/check_merge.py" m.html drawn.json || fail "the page in Chromium"
expect_eq "$(jget drawn.json 'd["errors"]')" "[]" "console errors"
expect_eq "$(jget drawn.json '"\n".join(d["tables"]["some-ranks-table"] + d["tables"]["live-some-ranks-table"])')" \
"4,194,304 | 1, no rank (pid $pa) | 0, no rank (pid $pb) | rank 1 2.0 MiB, no rank (pid $pa) 2.0 MiB | device | leak_some (rank_leaks.c:$ls)
4,194,304 | 1, no rank (pid $pa) | 0, no rank (pid $pb) | device |  | leak_some (rank_leaks.c:$ls)" \
    "the rows of the sites on some ranks only"
echo ok
