# GPULEAK_INTERVAL: snapshots on a schedule while the program runs, of
# reason "periodic"; GPULEAK_KEEP bounds how many stay on disk (the first of
# the series and the newest); diff over them finds the growing stack.
source "$ROOT/tests/lib.sh"
line=$(site_line scenarios.c 'LEAK-SITE: leak_runtime')
mkdir out
GPULEAK_OUTPUT=$PWD/out/s.%n.snap GPULEAK_INTERVAL=150ms GPULEAK_KEEP=3 \
    traced "$TPROG/scenarios" periodic "$PWD/out" 5 >run.txt 2>err.txt
[ ! -s err.txt ] || fail "stderr: $(cat err.txt)"
newest=$(sed -n 's/^newest //p' run.txt)
[ "$newest" -ge 5 ] || fail "newest periodic snapshot is $newest, expected >= 5"
# On disk: the first of the series, the two newest periodic ones, and the
# exit snapshot (never removed), numbered after them.
files=$(cd out && ls | sort -t. -k2,2n | tr '\n' ' ')
n=$(ls out | wc -l)
expect_eq "$n" 4 "files kept ($files)"
first=out/s.0.snap
exit_snap=out/$(ls out | sort -t. -k2,2n | tail -1)
last=$(ls out | sort -t. -k2,2n | tail -2 | head -1)
[ -e "$first" ] || fail "the first periodic snapshot was removed ($files)"
for f in out/*.snap; do
    "$REPORT" --json "$f" >"$f.json"
    want=periodic
    [ "$f" = "$exit_snap" ] && want=exit
    expect_eq "$(jget "$f.json" 'd["snapshot"]["reason"]')" "$want" "reason of $f"
done
check_json "$first.json" <<'PY'
eq(d["leak_summary"]["bytes"], 0, "nothing leaked before the first periodic snapshot")
PY
check_json "out/$last.json" <<PY
eq([(l["bytes"], l["count"]) for l in leaks], [(5 << 20, 5)], "live in the newest periodic snapshot")
eq(frame(l["frames"][0]) if (l := leaks[0]) else None, "leak_runtime scenarios.c:$line", "site")
PY
"$REPORT" --json diff "$first" "out/$last" >diff.json
growth=$(jget diff.json '[(r["growth"], r["frames"][0]["function"], r["frames"][0]["line"]) for r in d["stacks"] if r["growth"]]')
expect_eq "$growth" "[[5242880, \"leak_runtime\", $line]]" "growth between the first and the newest periodic snapshot"

# Off by default and with 0; a bad value: one warning, no periodic snapshots.
for v in "" 0 10x; do
    rm -rf out && mkdir out
    GPULEAK_OUTPUT=$PWD/out/s.%n.snap GPULEAK_INTERVAL=$v traced "$TPROG/scenarios" leak-runtime 2>err.txt
    expect_eq "$(ls out | tr '\n' ' ')" "s.0.snap " "snapshots with GPULEAK_INTERVAL='$v'"
    if [ "$v" = 10x ]; then
        expect_eq "$(wc -l <err.txt)" 1 "warnings for GPULEAK_INTERVAL=10x"
        grep -q "ignoring GPULEAK_INTERVAL=10x" err.txt || fail "warning: $(cat err.txt)"
    else
        [ ! -s err.txt ] || fail "stderr with GPULEAK_INTERVAL='$v': $(cat err.txt)"
    fi
done

# GPULEAK_KEEP=0 keeps them all.
rm -rf out && mkdir out
GPULEAK_OUTPUT=$PWD/out/s.%n.snap GPULEAK_INTERVAL=150ms GPULEAK_KEEP=0 \
    traced "$TPROG/scenarios" periodic "$PWD/out" 3 >run.txt
newest=$(sed -n 's/^newest //p' run.txt)
# Every one is there: 0..M with no gap, M past the newest the program saw
# (more may be taken while it exits), the last one the exit snapshot.
m=$(ls out | sort -t. -k2,2n | tail -1 | cut -d. -f2)
[ "$m" -gt "$newest" ] || fail "GPULEAK_KEEP=0: last snapshot $m, newest seen $newest"
expect_eq "$(ls out | wc -l)" "$((m + 1))" "files with GPULEAK_KEEP=0 (all periodic + exit)"
