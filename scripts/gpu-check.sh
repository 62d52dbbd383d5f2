#!/usr/bin/env bash
# gpuleak on real hardware: builds (or takes a carried build of) gpuleak,
# builds real CUDA programs with nvcc, runs them and a PyTorch training loop
# under gpuleak, checks every report exactly, and prints one line per check
# (PASS|FAIL|SKIP  <check>  <key numbers or reason>), then
# "gpu-check: N passed, N failed, N skipped".  Without a GPU it runs what it
# can against fakecuda (--fake, the default when there is no /dev/nvidia*).
#
#   scripts/gpu-check.sh --help
#   scripts/gpu-check.sh --pack build/gpu-pack        # here: carry a build
#   scripts/gpu-check.sh --prebuilt build/gpu-pack    # on the GPU machine
#
# The work is done by scripts/gpu/gpu_check.py (python3, standard library);
# full logs, snapshots and reports go to $OUT (or --out, else
# build/gpu-check/out).  See docs/building.md, "Real hardware".
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
command -v "${GPU_CHECK_PYTHON:-python3}" >/dev/null 2>&1 || { echo "gpu-check: python3 not found" >&2; exit 2; }
exec "${GPU_CHECK_PYTHON:-python3}" "$here/gpu/gpu_check.py" "$@"
