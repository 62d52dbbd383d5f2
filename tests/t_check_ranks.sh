# gpuleak check over a multi-rank command (issue 35, item 4): one verdict
# per rank, naming the rank (from RANK, OMPI_COMM_WORLD_RANK, ... as the
# library records it), in rank order, and a job-level line with the ranks
# that have errors; the same in --json.  A process with no rank variable
# (torchrun's own agent, a tool beside the ranks) is "process P (no rank)",
# after the ranks, not a second rank 0 ("rank": null in --json).
source "$ROOT/tests/lib.sh"
export LD_LIBRARY_PATH=$FAKECUDA
[ -z "$GL_SAN" ] || export GPULEAK_LIB=$LIBGPULEAK
check() { "$LAUNCHER" check "$@" >out.txt 2>err.txt; }
job='RANK=1 "$1" leak-runtime & OMPI_COMM_WORLD_RANK=0 "$1" balanced; "$1" balanced; wait'

rc=0; check --error-exitcode 7 --output rk -- sh -c "$job" sh "$TPROG/scenarios" || rc=$?
expect_eq "$rc" 7 "a rank with a leak"
tail -5 err.txt | sed 's/process [0-9]*/process P/; s/gpuleak\.run-[A-Za-z0-9]\{6\}\.[0-9]*\./gpuleak.run-T.P./' >tail.txt
cat >want.txt <<EOT
gpuleak: rank 0 (process P): no errors: leaked: 0 bytes in 0 allocations from 0 stacks [rk/gpuleak.run-T.P.0.snap]
gpuleak: rank 1 (process P): ERRORS: leaked: 2,097,152 bytes (2.0 MiB) in 2 allocations from 1 stack [rk/gpuleak.run-T.P.0.snap]
gpuleak: process P (no rank): no errors: leaked: 0 bytes in 0 allocations from 0 stacks [rk/gpuleak.run-T.P.0.snap]
gpuleak: snapshots in rk
gpuleak: ERROR SUMMARY: 1 of 3 processes with errors (leaks, memory still mapped, refused frees, teardown releases); ranks with errors: 1
EOT
diff want.txt tail.txt || fail "per-rank verdicts"

rc=0; check --json=doc.json --error-exitcode 7 --output rj -- sh -c "$job" sh "$TPROG/scenarios" || rc=$?
expect_eq "$rc" 7 "a rank with a leak, JSON"
check_multi_json doc.json <<'PY'
eq([(p["rank"], p["verdict"], p["leaked_bytes"]) for p in d["processes"]],
   [(0, "no errors", 0), (1, "errors", 2097152), (None, "no errors", 0)], "per-rank verdicts")
eq((d["job"]["ranks_with_errors"], d["job"]["with_errors"], d["job"]["processes"]), ([1], 1, 3), "job")
PY
echo ok
