#!/usr/bin/env bash
# Installs the Debian packages gpuleak needs to build and test.  Idempotent and
# quick when everything is there: apt is only called for what is missing.
set -euo pipefail

pkgs=(
    build-essential  # gcc, make, libc headers
    g++              # C++ test programs (demangling tests)
    libunwind-dev    # stack capture in libgpuleak
    uthash-dev       # hash tables in libgpuleak
    libdw-dev        # symbolization in gpuleak-report (elfutils)
    libelf-dev
    binutils         # nm/readelf used by tests
    python3          # JSON assertions in tests
    clang            # libFuzzer targets (make fuzz, the fuzz phase of make check)
    libclang-rt-14-dev  # libFuzzer and the sanitizer runtimes for clang 14
    libasan8         # ASan/UBSan and TSan runtimes for gcc (sanitizer phases)
    libubsan1
    libtsan2
    util-linux       # setpriv, unshare (hostile-environment tests)
    python3-numba    # numba.cuda as a real driver-API client (tests/t_numba.sh); for Debian's /usr/bin/python3
    python3-pytest   # the pytest plugin (tests/t_pytest_plugin.sh); for Debian's /usr/bin/python3
    tmux             # the live view under a terminal (tests/t_live_top.sh)
    man-db           # man -l on the installed man pages (tests/t_packaging.sh)
    pkg-config       # gpuleak.pc (tests/t_packaging.sh)
    openmpi-bin      # a real mpirun launching ranks (tests/t_cluster_mpirun.sh)
    prometheus       # a real scrape of GPULEAK_METRICS, and promtool (tests/t_cluster_metrics.sh)
    prometheus-node-exporter  # its textfile collector (tests/t_cluster_metrics.sh)
    zlib1g-dev       # gzip of gpuleak-report --pprof
)

missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# python3 may come from elsewhere (pyenv); only ask apt if none is on PATH.
# (Whole elements only: python3-numba is still Debian's to install.)
if command -v python3 >/dev/null; then
    for i in "${!missing[@]}"; do
        [ "${missing[$i]}" = python3 ] && missing[$i]=
    done
fi
read -r -a missing <<<"${missing[*]}"

# The libFuzzer runtime's package is named after clang's version: Debian 12
# has libclang-rt-14-dev; elsewhere take the default clang's.
for i in "${!missing[@]}"; do
    if [ "${missing[$i]}" = libclang-rt-14-dev ] && ! apt-cache show libclang-rt-14-dev >/dev/null 2>&1; then
        missing[$i]=libclang-rt-dev
    fi
done

if [ ${#missing[@]} -gt 0 ]; then
    "$(dirname "$0")"/apt-install.sh "install-deps: installing ${missing[*]}" "${missing[@]}"
fi

# Headless Chromium for the HTML report's browser test (tests/t_html_browser.sh
# skips, counted, without it).  Large, so apart; GPULEAK_NO_BROWSER=1 skips it.
if [ -z "${GPULEAK_NO_BROWSER:-}" ] && ! command -v chromium >/dev/null; then
    "$(dirname "$0")"/apt-install.sh "install-deps: installing chromium (for the HTML report's browser test)" chromium
fi

# Go's pprof reads --pprof's profiles in tests/t_report_pprof.sh (which skips,
# counted, without it).  Large, so apart; GPULEAK_NO_GO=1 skips it.
if [ -z "${GPULEAK_NO_GO:-}" ] && ! command -v go >/dev/null; then
    "$(dirname "$0")"/apt-install.sh "install-deps: installing golang-go (go tool pprof, for the pprof export's test)" golang-go
fi

CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
if [ ! -f "$CUDA_HOME/include/cuda.h" ] || [ ! -f "$CUDA_HOME/include/cuda_runtime_api.h" ]; then
    echo "install-deps: CUDA headers not found under CUDA_HOME=$CUDA_HOME." >&2
    echo "install-deps: install the CUDA toolkit (headers only are enough) and set CUDA_HOME." >&2
    exit 1
fi
