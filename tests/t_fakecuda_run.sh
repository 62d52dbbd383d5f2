# build/fakecuda/fakecuda-run (issue 33): options become fakecuda's
# environment, bad ones get one line and exit 2, and it composes with the
# launcher in either order: gpuleak's hooks stay in front of the stand-in
# runtime in LD_PRELOAD, so gpuleak sees the program's runtime calls
# (scenarios leak-runtime: two 1 MiB cudaMalloc leaks at leak_runtime).
source "$ROOT/tests/lib.sh"
RUN=$FAKECUDA/fakecuda-run

expect_eq "$("$RUN" --devices 3 --mem 1048576 -- sh -c 'echo $FAKECUDA_DEVICES $FAKECUDA_MEM_BYTES')" "3 1048576" "knobs"
set +e
"$RUN" --mem 1G -- true 2>err.txt; rc=$?
set -e
expect_eq "$rc $(cat err.txt)" "2 fakecuda-run: --mem wants plain decimal bytes, not '1G'" "a bad size"
expect_eq "$(LD_PRELOAD=$LIBGPULEAK "$RUN" -- printenv LD_PRELOAD)" \
    "$LIBGPULEAK:$FAKECUDA/libcudart.so.13:$FAKECUDA/libcublasLt.so.13:$FAKECUDA/libcublas.so.13:$FAKECUDA/libcudnn.so.9" \
    "the stand-ins go after what is preloaded already"
# A program whose DT_RPATH names NVIDIA's libraries (a wheel's does) gets
# the stand-ins under fakecuda-run (issue 44).
expect_eq "$("$RUN" -- "$TPROG/fc_blas_test_rpath" info | head -1)" \
    "libcublas=$FAKECUDA/libcublas.so.13 libcublasLt=$FAKECUDA/libcublasLt.so.13" "cuBLAS despite a DT_RPATH"

for order in outside inside; do
    if [ $order = outside ]; then
        "$RUN" --devices 1 -- "$LAUNCHER" run --output "$order.snap" -- "$TPROG/scenarios" leak-runtime
    else
        "$LAUNCHER" run --output "$order.snap" -- "$RUN" --devices 1 -- "$TPROG/scenarios" leak-runtime
    fi
    "$REPORT" --json "$order.snap" >"$order.json" || fail "$order: report exit $?"
    check_json "$order.json" <<'PY'
eq([(l["bytes"], l["count"], l["frames"][0]["function"]) for l in leaks], [(2097152, 2, "leak_runtime")], "the runtime leaks")
PY
done
