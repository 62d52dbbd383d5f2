#!/usr/bin/env bash
# Everything CI runs: the whole test suite against the normal build.  The last
# line printed is the suite's "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build} tests/run.sh
