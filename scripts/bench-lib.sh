# What the bench scripts share (scripts/bench.sh, bench-torch.sh,
# bench-plan.sh); sourced, not run.

# bench_work NAME: $work, a new directory under $TMPDIR named after NAME
# and removed at exit, and $RAW, an empty file in it that takes one
# measurement a line ("KEY VALUE...").
bench_work() {
    work=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    RAW=$work/raw.txt
    : >"$RAW"
}

# bench_torch_env: the environment of the torch runs: the CUDA toolkit's
# lib64 on the library path, and gpuleak's Python package from $ROOT/tools;
# and the paths they run (from $ROOT and $BUILD): FCRUN (fakecuda-run),
# LAUNCHER (gpuleak), STEP (section 7's step script).
bench_torch_env() {
    FCRUN=$ROOT/$BUILD/fakecuda/fakecuda-run
    LAUNCHER=$ROOT/$BUILD/bin/gpuleak
    STEP=$ROOT/tests/bench/bench_torch_step.py
    export LD_LIBRARY_PATH=${CUDA_HOME:-/usr/local/cuda}/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export GPULEAK_PYTHON_DIR=$ROOT/tools
}
