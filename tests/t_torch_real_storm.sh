# Real PyTorch 2.14.1 never the thing that fails (issue 33), on fakecuda
# (tests/t_torch_real.sh says how torch runs here).  torch_real_storm.py:
# 4 threads allocate while the main thread sends itself 10 SIGUSR1s (each
# after the previous one's snapshot is written),
# GPULEAK_INTERVAL=200ms takes periodic snapshots, and one more SIGUSR1
# comes just before exit (its pending call still queued).  The run ends,
# status 0, in time; each storm signal gives one snapshot with PyTorch's
# answer; one exit snapshot; every file reads.  The signal just before exit
# gives a snapshot or not (when exit's final snapshot is taken first, the
# later one is dropped by design: it would hide the final one), so it is
# not counted (it is answered or absent).  Then GPULEAK_TORCH=0: PyTorch is asked nothing (its history
# recording stays off, no snapshot has a torch view).
source "$ROOT/tests/lib.sh"
torch_real_env
prog=$ROOT/tests/programs/torch_real_storm.py

# reasons DIR: "reason torch-status" of every snapshot in DIR, counted
# (one python for all: a run under load writes more periodic snapshots).
reasons() {
    for f in "$1"/*.snap; do
        "$REPORT" --json "$f" >"$f.json" || fail "report of $f: exit $?"
    done
    python3 -c 'import json, sys
for name in sys.argv[1:]:
    d = json.load(open(name))
    print(d["snapshot"]["reason"], d["torch"]["status"])' "$1"/*.snap.json | sort | uniq -c | awk '{ print $2, $3, $1 }'
}
for mode in on off; do
    mkdir $mode
    rc=0
    (cd $mode && GPULEAK_INTERVAL=200ms GPULEAK_TORCH=$([ $mode = on ] && echo 1 || echo 0) guard 60 \
        "$FAKECUDA/fakecuda-run" --devices 1 -- "$LAUNCHER" run -q -- "$PY" "$prog" >out.txt 2>err.txt) || rc=$?
    expect_eq "$rc" 0 "torch $mode: exit status ($(tail -3 $mode/err.txt))"
    if grep -q '^fakecuda: ' $mode/err.txt; then fail "$(grep '^fakecuda: ' $mode/err.txt)"; fi
    reasons $mode >$mode/reasons
done
expect_eq "$(cat on/out.txt)" "history True" "torch on: PyTorch's history recording turned on"
# 10, or 11 when the signal just before exit is answered too (gpuleak's
# atexit callback runs bytecode, so the queued pending call runs there).
n=$(grep '^signal answered ' on/reasons | cut -d' ' -f3)
[ "${n:-0}" -ge 10 ] && [ "$n" -le 11 ] ||
    fail "torch on: signal snapshots with PyTorch's answer: $(grep '^signal ' on/reasons | tr '\n' ';')"
# The exit snapshot carries the view gpuleak's atexit callback took (issue 35).
expect_eq "$(grep '^exit ' on/reasons)" "exit answered 1" "torch on: the exit snapshot"
grep -q '^periodic ' on/reasons || fail "torch on: no periodic snapshot: $(cat on/reasons)"
expect_eq "$(cat off/out.txt)" "history False" "GPULEAK_TORCH=0: PyTorch's history recording left off"
expect_eq "$(grep -vc ' absent ' off/reasons)" 0 "GPULEAK_TORCH=0: snapshots with a torch view ($(cat off/reasons))"
n=$(grep '^signal ' off/reasons | cut -d' ' -f3)
[ "${n:-0}" -ge 10 ] || fail "GPULEAK_TORCH=0: $n signal snapshots, not 10 or more"
expect_eq "$(grep '^exit ' off/reasons)" "exit absent 1" "GPULEAK_TORCH=0: the exit snapshot"
