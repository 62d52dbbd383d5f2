# fakecuda's cuBLAS and cuBLASLt stand-ins (issue 44): libcublas.so.13 and
# libcublasLt.so.13 export exactly the names of NVIDIA's two libraries
# (blas/libcublas_exports.txt, blas/libcublasLt_exports.txt), each under
# its version node, as the toolkit's do; cuBLAS needs cuBLASLt as NVIDIA's
# does; a stub says what it is when FAKECUDA_STUB_LOG=1; and the answers a
# caller reads and the default workspace's device memory are exact
# (tests/fakecuda/fc_blas_test.c).
source "$ROOT/tests/lib.sh"
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
BLAS=$ROOT/tools/fakecuda/blas
T=$TPROG/fc_blas_test

# LIB COUNT: exactly the list, every name at the library's soname, plus the
# version node itself.
exports_are() {
    local lib=$1 count=$2
    nm -D --defined-only "$FAKECUDA/$lib.so.13" >"$lib.nm"
    awk '$2 == "T" { print $3 }' "$lib.nm" | LC_ALL=C sort >"$lib.fake"
    sed "s/\$/@@$lib.so.13/" "$BLAS/${lib}_exports.txt" | LC_ALL=C sort >"$lib.want"
    diff -u "$lib.want" "$lib.fake" >"$lib.diff" || fail "$lib exports differ from the list: $(head -5 "$lib.diff")"
    expect_eq "$(awk '$2 != "T"' "$lib.nm")" "0000000000000000 A $lib.so.13" "$lib: the version node"
    expect_eq "$(wc -l <"$BLAS/${lib}_exports.txt")" "$count" "$lib: functions in the list"
    expect_eq "$(readelf -d "$FAKECUDA/$lib.so.13" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')" "$lib.so.13" "$lib: soname"
}
exports_are libcublas 756
exports_are libcublasLt 184
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

# The lists are what this toolkit's libraries export (gen-exports.sh), at
# NVIDIA's versions.
for lib in libcublas libcublasLt; do
    skip_if "[ ! -e '$CUDA_HOME/lib64/$lib.so.13' ]" "NVIDIA's $lib.so.13 not in $CUDA_HOME/lib64"
    "$ROOT/tools/fakecuda/gen-exports.sh" "$CUDA_HOME/lib64/$lib.so.13" >"$lib.real"
    diff -u "$BLAS/${lib}_exports.txt" "$lib.real" >"$lib.ldiff" ||
        fail "${lib}_exports.txt is not the toolkit's list: $(head -5 "$lib.ldiff")"
    nm -D --defined-only "$CUDA_HOME/lib64/$lib.so.13" | awk '$2 == "T" { print $3 }' | LC_ALL=C sort >"$lib.realnm"
    cmp -s "$lib.realnm" "$lib.fake" || fail "$lib: versions differ from NVIDIA's: $(diff "$lib.realnm" "$lib.fake" | head -3)"
done
