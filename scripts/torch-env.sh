#!/usr/bin/env bash
# Makes sure a Python with PyTorch 2.14.1 (CUDA 13 build) exists and prints
# its path: the real-torch tests (tests/t_torch_real*.sh) run it under
# build/fakecuda/fakecuda-run.  The venv lives outside the clone,
# ${XDG_CACHE_HOME:-~/.cache}/gpuleak/torch-venv, so every clone and CI run
# on the machine shares it; quick when present (a stamp names the recipe).
# On failure (no network, no python3.11) prints one line saying why and
# exits 1, so the tests skip, counted, with that line.
#
# The recipe: torch without its nvidia-* dependencies (several GB), since
# the CUDA toolkit ($CUDA_HOME/lib64, on LD_LIBRARY_PATH when torch runs)
# has cuBLAS, cuFFT, cuRAND, cuSPARSE, NVRTC, CUPTI and cuDNN; from PyPI only
# what it lacks or has too old: NCCL (torch needs ncclCommResume),
# cuSPARSELt, NVSHMEM, cuFile.  Plus pytest, for the plugin on real torch.
set -uo pipefail
cache=${XDG_CACHE_HOME:-$HOME/.cache}/gpuleak
venv=$cache/torch-venv
py=$venv/bin/python
recipe="torch==2.14.1 | typing_extensions==4.16.0 filelock==4.3.2 sympy==1.14.0 networkx==3.6.1 jinja2==3.1.6 fsspec==2026.9.0 pytest==9.2.0 numpy==2.4.6 | nvidia-cusparselt-cu13==0.8.1 nvidia-nvshmem-cu13==3.4.5 nvidia-nccl-cu13==2.30.7 nvidia-cufile==1.15.1.6 cuda-toolkit==13.0.3"
stamp=$venv/.gpuleak-recipe

if [ -x "$py" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$recipe" ]; then
    echo "$py"
    exit 0
fi
die() { echo "torch-env: $*"; exit 1; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# pip's output goes to a log; its last line is the reason on failure.
pipi() { "$py" -m pip install -q --disable-pip-version-check "$@" >"$log" 2>&1 ||
         die "pip install $* failed: $(grep -v '^\s*$' "$log" | tail -1)"; }
command -v python3 >/dev/null || die "no python3 on PATH"
mkdir -p "$cache" || die "cannot create $cache"
if [ ! -x "$py" ]; then
    python3 -m venv "$venv" >"$log" 2>&1 || die "python3 -m venv failed: $(tail -1 "$log")"
fi
IFS='|' read -r torch_pkg common nvidia <<<"$recipe"
# shellcheck disable=SC2086  # word splitting of the package lists is meant
pipi --no-deps $torch_pkg
# shellcheck disable=SC2086
pipi $common
# shellcheck disable=SC2086
pipi --no-deps $nvidia
"$py" -c 'import importlib.metadata as m; v = m.version("torch"); assert v.startswith("2.14.1"), v' >"$log" 2>&1 ||
    die "torch 2.14.1 not installed in $venv: $(tail -1 "$log")"
echo "$recipe" >"$stamp"
echo "$py"
