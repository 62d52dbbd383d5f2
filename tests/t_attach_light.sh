# gpuleak attach --light (issue 46, item 2): light mode, the production
# setting, for a job attached to as for one started under gpuleak run
# --light.  A target started without gpuleak, with GPULEAK_SAMPLE_BYTES=1
# in its environment (so that every allocation is sampled and the leak's
# line is exact), is attached to with --light, leaks 1000 bytes at its
# "rt" line, and is detached: the detach snapshot says it was sampled by
# bytes at 1, with the leak at that line.  Attached without --light, the
# same leak is in a snapshot that is not sampled.  `gpuleak run --light`
# is t_light_mode's.
source "$ROOT/tests/lib.sh"
need_gdb_attach
export LD_LIBRARY_PATH=$FAKECUDA GPULEAK_SAMPLE_BYTES=1
T=$TPROG/attach_target
rt_line=$(grep -n 'LEAK_RT' "$ROOT/tests/programs/attach_target.c" | cut -d: -f1)
[ -n "$rt_line" ] || fail "no LEAK_RT marker in attach_target.c"

# attached NAME [--light]: the detach snapshot of one attach, its JSON in
# NAME.json.
attached() {
    local name=$1
    shift
    target_start "$name" 200 "$T"
    "$LAUNCHER" attach --output "$PWD/$name-%p.%n.snap" "$@" "$pid" 2>"$name.attach" ||
        fail "$name: attach $*: $(cat "$name.attach")"
    target_send "$name" "rt 1000"
    snap=$("$LAUNCHER" detach "$pid" 2>"$name.detach") || fail "$name: detach: $(cat "$name.detach")"
    target_finish
    "$REPORT" --json "$snap" >"$name.json" || fail "$name: report of $snap"
}

attached light --light
check_json light.json <<PY
eq(d["snapshot"]["sampling"], {"sampled": True, "mode": "bytes", "sample_bytes": 1}, "--light: sampled")
eq([(g["bytes"], frame(g["frames"][0])) for g in leaks], [(1000, "leak_rt attach_target.c:$rt_line")],
   "--light: the leak at its line")
PY
attached full
check_json full.json <<PY
eq(d["snapshot"]["sampling"], None, "without --light: not sampled")
eq([(g["bytes"], frame(g["frames"][0])) for g in leaks], [(1000, "leak_rt attach_target.c:$rt_line")],
   "without --light: the leak at its line")
PY
echo ok
