# fakecuda's cuBLAS and cuBLASLt stand-ins (issue 44; their exports,
# blas/exports/SONAME.txt, are checked with every stand-in's by
# t_fakecuda_exports.sh): cuBLAS needs cuBLASLt as NVIDIA's does; a stub
# says what it is when FAKECUDA_STUB_LOG=1; and the answers a caller reads
# and the default workspace's device memory are exact
# (tests/fakecuda/fc_blas_test.c).
source "$ROOT/tests/lib.sh"
T=$TPROG/fc_blas_test

readelf -d "$FAKECUDA/libcublas.so.13" | grep -q 'NEEDED.*\[libcublasLt.so.13\]' ||
    fail "libcublas.so.13 does not need libcublasLt.so.13"

# The answers (1 device of 1 GiB: an sm90 card, so 32 MiB workspaces).
for s in handle heuristic workspace legacy copies threads; do
    FAKECUDA_DEVICES=1 FAKECUDA_MEM_BYTES=1073741824 fc "$T" $s >out.txt 2>err.txt ||
        fail "$s exited $?: $(cat err.txt)"
    expect_eq "$(cat out.txt)" "ok $s" "scenario $s"
    expect_eq "$(cat err.txt)" "" "scenario $s: stderr"
done
CUBLAS_WORKSPACE_CONFIG=:4096:2:16:8 fc "$T" workspace_config >/dev/null || fail "workspace_config exited $?"
FAKECUDA_MEM_BYTES=16777216 fc "$T" workspace_oom >/dev/null || fail "workspace_oom exited $?"
FAKECUDA_DEVICES=0 fc "$T" no_device >/dev/null || fail "no_device exited $?"

# Under gpuleak, a default workspace left at exit is the library's own
# stream-ordered allocation through its runtime to the driver, as NVIDIA's
# is: held by the cublas-workspace rule, no leak.
FAKECUDA_DEVICES=1 fc "$LAUNCHER" run --output ws.snap -- "$T" leave_workspace >/dev/null ||
    fail "leave_workspace under gpuleak exited $?"
"$REPORT" --json ws.snap >ws.json || fail "report: exit $?"
check_json ws.json <<'PY'
eq(d["leak_summary"]["leaked_bytes"], 0, "leaked bytes")
eq([(g["rule"], g["bytes"], g["count"], g["api"]) for g in d["allocator_caches"]["groups"]],
   [("cublas-workspace", 33554432, 1, "cuMemAllocAsync")], "the workspace")
PY

# FAKECUDA_STUB_LOG=1: each stub called says so, once.
FAKECUDA_STUB_LOG=1 FAKECUDA_DEVICES=1 fc "$T" workspace >/dev/null 2>err.txt || fail "logged run exited $?"
expect_eq "$(cat err.txt)" "fakecuda: cublasSgemm_v2: stub (success, computes nothing)" "the stub's line"

