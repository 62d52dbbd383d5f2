# gpuleak run's end line (issue 35, launcher messages): several processes
# get `gpuleak merge` on each one's last snapshot, not `report <first>`; a
# long job with several snapshots of one process gets `gpuleak diff` over
# all of them (growth is judged at every step): their glob when it names
# exactly them (the reporter orders one process's snapshots by index, .10
# after .2), else each by name; launchers that share a pattern
# (one per rank) each count and name only their own rank's snapshots.
# (Lines of the launcher only: a sanitizer may add its own.)
source "$ROOT/tests/lib.sh"
export LD_LIBRARY_PATH=$FAKECUDA
[ -z "$GL_SAN" ] || export GPULEAK_LIB=$LIBGPULEAK
G=$(printf '%q' "$LAUNCHER")

# Two processes (a fork): merge.
"$LAUNCHER" run -- "$TPROG/scenarios" fork >out.txt 2>err.txt
set -- $(ls gpuleak.*.0.snap | sort -t. -k2,2n)
expect_eq "$(grep "^gpuleak:" err.txt)" "gpuleak: wrote 2 snapshots, one per process ($1, $2); compare them with: $G merge $1 $2" "fork"
rm gpuleak.*.snap

# One process, several snapshots: diff the first and the last.
mkdir out
"$LAUNCHER" run --output 'out/s.%n.snap' --interval 100ms -- "$TPROG/scenarios" periodic "$PWD/out" 10 >out.txt 2>err.txt
n=$(ls out | wc -l)
[ "$n" -ge 11 ] || fail "snapshots: $(ls out)"
last=$(ls out | sed 's/s\.\([0-9]*\)\.snap/\1/' | sort -n | tail -1)
expect_eq "$(grep "^gpuleak:" err.txt)" "gpuleak: wrote $n snapshots of one process (out/s.0.snap ... out/s.$last.snap); see what grew with: $G diff out/s.*.snap" "a long job"
# the hint's command works as given: every snapshot, in the order taken
# (the glob's s.10 before s.2 reordered by the reporter)
"$LAUNCHER" diff --json out/s.*.snap > series.json 2> series.err || fail "the hint's diff: status $?"
expect_eq "$(jget series.json '" ".join(s["path"] for s in d["snapshots"])')" \
    "$(ls out | sort -t. -k2,2n | sed 's|^|out/|' | tr '\n' ' ' | sed 's/ $//')" "the hint's diff: all, in order"
# an older run's snapshot under the same pattern: the glob would take it in,
# so each of this run's snapshots is named
mv out old && mkdir out && cp old/s.0.snap out/s.99.snap
"$LAUNCHER" run --output 'out/s.%n.snap' --interval 100ms -- "$TPROG/scenarios" periodic "$PWD/out" 2 >out.txt 2>err.txt
expect_eq "$(grep "^gpuleak:" err.txt | sed 's/.*see what grew with: //')" "$G diff$(ls out | grep -vx s.99.snap | sort -t. -k2,2n | sed 's|^| out/|' | tr -d '\n')" "a long job beside an older snapshot"

# Four launchers, one pattern: each names its own rank's snapshot.
for r in 0 1 2 3; do
    RANK=$r "$LAUNCHER" run --output 'rank%r.%n.snap' -- "$TPROG/scenarios" leak-runtime 2>err$r.txt &
done
wait
for r in 0 1 2 3; do
    expect_eq "$(grep "^gpuleak:" err$r.txt)" "gpuleak: wrote rank$r.0.snap; read it with: $G report rank$r.0.snap" "launcher of rank $r"
done
echo ok
