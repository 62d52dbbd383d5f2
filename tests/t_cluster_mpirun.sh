# Four ranks started by a real launcher, Debian's Open MPI `mpirun -n 4`
# (issue 38), under the gpuleak launcher on fakecuda.  The ranks stand for
# two nodes of two GPUs: as a multi-node job script does, each is started
# with LOCAL_RANK exported (OMPI_COMM_WORLD_RANK % 2), and works on device
# LOCAL_RANK (tests/programs/rank_job.c).  Each keeps 1 MiB at
# keep_buffer(); rank 2 keeps 4 MiB there.
#   - `gpuleak run --output 'snaps/%h.%r.%n.snap' -- mpirun ...`: one file
#     per rank, named by the global rank the launcher gave it, not by the
#     LOCAL_RANK the script exported (which repeats across nodes);
#   - merge of that directory: the per-rank bytes, and the one site named
#     with its imbalance (1.0 MiB on ranks 0, 1, 3; 4.0 MiB on rank 2);
#   - `gpuleak check --min-bytes 2M -- mpirun ...`: one verdict per rank,
#     ERRORS for rank 2's process alone, status 9; with --min-bytes 8M,
#     none and status 0.
source "$ROOT/tests/lib.sh"
skip_if '! command -v mpirun >/dev/null' "no mpirun (Debian's openmpi-bin; scripts/install-deps.sh installs it)"
# Sanitizer builds: the instrumented library needs its runtime first in
# every process's preload, mpirun's and orted's included.  Open MPI's own
# allocations at exit and its threads' races (libpmix) are not ours to
# judge, and its code, without frame pointers, cuts the sanitizers' stacks
# short, so no suppression can name it: the job runs with leak checking
# (ASan) or reports (TSan) off, and each rank's wrapper puts the options
# back (RANK_ASAN_OPTIONS, RANK_TSAN_OPTIONS).
case $GL_SAN in
asan) export RANK_ASAN_OPTIONS=$ASAN_OPTIONS ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0 ;;
tsan) export RANK_TSAN_OPTIONS=$TSAN_OPTIONS TSAN_OPTIONS=$TSAN_OPTIONS:report_bugs=0 ;;
esac
[ -z "$GL_SAN" ] || export GPULEAK_LIB=$LIBGPULEAK
# Root (containers, CI) must say so to Open MPI; --oversubscribe: 4 ranks
# on fewer cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
job=(guard 60 "$FAKECUDA/fakecuda-run" --devices 2 --)
# shellcheck disable=SC2016 # expanded by each rank's sh
mpi=(mpirun --oversubscribe -n 4 sh -c '[ -z "${RANK_ASAN_OPTIONS:-}" ] || export ASAN_OPTIONS=$RANK_ASAN_OPTIONS
    [ -z "${RANK_TSAN_OPTIONS:-}" ] || export TSAN_OPTIONS=$RANK_TSAN_OPTIONS
    LOCAL_RANK=$((OMPI_COMM_WORLD_RANK % 2)) exec "$0" 2' "$TPROG/rank_job")
MiB=1048576

mkdir snaps
"${job[@]}" "$LAUNCHER" run --output 'snaps/%h.%r.%n.snap' -- "${mpi[@]}" >run.out 2>run.err ||
    fail "run: status $?: $(tail -3 run.err)"
"$REPORT" --json merge snaps/*.snap >m.json || fail "merge --json: status $?"
# Each file is named HOST.RANK.0.snap by the rank and host it records, and
# rank r worked on device r % 2.
python3 - m.json "$(ls snaps | LC_ALL=C sort | paste -sd' ')" <<'PY' || fail "snapshots by rank"
import json, os, sys
d = json.load(open(sys.argv[1]))
MiB = 1 << 20
ranks = d["ranks"]
names = ["%s.%d.0.snap" % (r["host"], r["rank"]) for r in ranks]
assert sorted(names) == sys.argv[2].split(), (names, sys.argv[2])
assert [(r["rank"], r["peak_device"], [x["device"] for x in r["devices"]], r["live_bytes"], r["live_count"])
        for r in ranks] == [(0, 0, [0], MiB, 1), (1, 1, [1], MiB, 1), (2, 0, [0], 4 * MiB, 4), (3, 1, [1], MiB, 1)], ranks
assert len({r["pid"] for r in ranks}) == 4, ranks
PY
"$REPORT" merge snaps/*.snap >m.txt || fail "merge: status $?"
kl=$(site_line rank_job.c 'RANK-SITE: keep_buffer')
grep -A3 -x '7,340,032 bytes (7.0 MiB) of device memory on every rank (4), uneven: 1.0 MiB (rank 0) to 4.0 MiB (rank 2)' m.txt >site.txt ||
    fail "merge: the uneven site: $(sed -n '/^LEAKS BY SITE/,/^STACKS ON/p' m.txt)"
expect_eq "$(sed -n 2,3p site.txt)" "    on: rank 0 1.0 MiB in 1 allocation, rank 1 1.0 MiB in 1 allocation, rank 2 4.0 MiB in 4 allocations, rank 3 1.0 MiB in 1 allocation
    #0 keep_buffer (rank_job.c:$kl) [rank_job]" "merge: the site's ranks and frame"
grep -Eqx 'rank 2 \(pid [0-9]+, host [^,]+\): 4,194,304 bytes \(4\.0 MiB\) on device 0 at [0-9.]+ s' m.txt ||
    fail "merge: the largest peak: $(sed -n '/^LARGEST PEAK/,+1p' m.txt)"

# gpuleak inside the launcher, around each rank (the multi-node form,
# docs/cluster.md), into the same directory: each rank's next number; the
# last snapshot of each rank, picked as docs/cluster.md shows, is this run's.
"${job[@]}" "${mpi[@]:0:4}" "$LAUNCHER" run -q --output "$PWD/snaps/%h.%r.%n.snap" -- "${mpi[@]:4}" >run2.out 2>run2.err ||
    fail "per-rank run: status $?: $(tail -3 run2.err)"
last=$(cd snaps && ls *.snap | sort -V |
    awk '{ key = $0; sub(/\.[0-9]+\.snap$/, "", key); last[key] = $0 } END { for (k in last) print last[k] }' | sort)
expect_eq "$(sed 's/^.*\.\([0-9]*\)\.\([0-9]*\)\.snap$/\1.\2/' <<<"$last" | paste -sd' ')" "0.1 1.1 2.1 3.1" "the last snapshot of each rank"
(cd snaps && "$REPORT" --json merge $last) >m2.json || fail "merge of the last: status $?"
expect_eq "$(jget m2.json '[(r["rank"], r["live_bytes"]) for r in d["ranks"]]')" \
    "[[0, $MiB], [1, $MiB], [2, $((4 * MiB))], [3, $MiB]]" "merge of the last: bytes per rank"

# check over the launcher: one verdict per rank's process, from its final
# snapshot, named by rank; the rank is also read back from the snapshot.
verdicts() { grep -E '^gpuleak: (rank [0-9]+ \()?process [0-9]+\)?: ' err.txt; }
rc=0
"${job[@]}" "$LAUNCHER" check --error-exitcode 9 --min-bytes 2M --output chk -- "${mpi[@]}" >out.txt 2>err.txt || rc=$?
expect_eq "$rc" 9 "check --min-bytes 2M: status"
expect_eq "$(verdicts | wc -l)" 4 "check: verdicts"
bad=$(verdicts | grep ': ERRORS: ' | sed -E 's/.*\[(.*)\]$/\1/')
[ -n "$bad" ] && [ "$(wc -l <<<"$bad")" = 1 ] || fail "check: expected one process with errors: $(verdicts)"
expect_eq "$(jget <("$REPORT" --json "$bad") 'd["snapshot"]["rank"]')" 2 "check: the rank that fails"
grep -qF ': ERRORS: leaked: 4,194,304 bytes (4.0 MiB) in 4 allocations from 1 stack [' err.txt || fail "check: rank 2's verdict: $(verdicts)"
expect_eq "$(verdicts | grep -c ': no errors: leaked: 1,048,576 bytes (1.0 MiB) in 1 allocation from 1 stack, below --min-bytes 2,097,152 \[')" 3 "check: the other ranks"
expect_eq "$(verdicts | grep ': ERRORS: ' | sed -E 's/ \(process [0-9]+\)//; s/: ERRORS: .*//')" "gpuleak: rank 2" "check: the verdict names rank 2"
grep -qx 'gpuleak: ERROR SUMMARY: 1 of 4 processes with errors (leaks, memory still mapped, refused frees, teardown releases); ranks with errors: 2' err.txt ||
    fail "check: summary: $(tail -1 err.txt)"
rc=0
"${job[@]}" "$LAUNCHER" check --error-exitcode 9 --min-bytes 8M --output chk8 -- "${mpi[@]}" >out.txt 2>err.txt || rc=$?
expect_eq "$rc" 0 "check --min-bytes 8M: status"
expect_eq "$(verdicts | grep -c ': no errors: ')" 4 "check --min-bytes 8M: verdicts"
