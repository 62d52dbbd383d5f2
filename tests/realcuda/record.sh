#!/bin/bash
# Regenerates tools/fakecuda/real_runtime_requests.txt: the requests NVIDIA's
# real runtime makes of the driver, recorded with tests/realcuda/rec_driver.c
# standing in for libcuda.so.1.  Shared and static runtimes must agree.
#   tests/realcuda/record.sh [OUT]      (CUDA_HOME, default /usr/local/cuda)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
OUT=${1:-$ROOT/tools/fakecuda/real_runtime_requests.txt}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
${CC:-cc} -std=gnu11 -Wall -Wextra -Werror -fvisibility=hidden -fPIC -shared -I"$CUDA_HOME/include" \
    -Wl,-soname,libcuda.so.1 -o "$T/libcuda.so.1" "$ROOT/tests/realcuda/rec_driver.c" -ldl -lpthread
"$CUDA_HOME/bin/nvcc" -cudart shared -o "$T/prog_shared" "$ROOT/tests/realcuda/prog.cu"
"$CUDA_HOME/bin/nvcc" -o "$T/prog_static" "$ROOT/tests/realcuda/prog.cu"
for k in shared static; do
    REC_LOG=$T/log_$k LD_LIBRARY_PATH=$T:$CUDA_HOME/lib64 "$T/prog_$k" >/dev/null
done
cmp -s "$T/log_shared" "$T/log_static" || { echo "record.sh: shared and static runtimes differ" >&2; exit 1; }
rt=$(basename "$(readlink -f "$CUDA_HOME/lib64/libcudart.so.13")")
nv=$("$CUDA_HOME/bin/nvcc" --version | sed -n 's/.*release \([0-9.]*\), \(V[0-9.]*\).*/\1 (nvcc \2)/p')
{
    echo "# The driver requests of NVIDIA's CUDA runtime $nv, $rt and libcudart_static.a"
    echo "# (identical), during the first runtime call.  Recorded by tests/realcuda/record.sh;"
    echo "# followed by fakecuda's runtime (fc_rt_init.c) and replayed by tests/t_real_runtime.sh."
    echo "# $(grep -c '^scope local' "$T/log_shared") dlopen(\"libcuda.so.1\"): scope $(sed -n 's/^scope //p' "$T/log_shared" | head -1) (no RTLD_GLOBAL); only cuGetProcAddress_v2 is dlsym'd."
    echo "# entry: dlsym = the dlsym'd cuGetProcAddress_v2, fetched = the pointer it returned for"
    echo "# cuGetProcAddress@12000.  flags: 0, or 2 = CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM."
    echo "# status: whether symbolStatus was given (null: a NULL pointer).  \"\" is an empty name."
    echo "# order entry symbol version flags status"
    awk '$1 == "gpa" { if (NF == 6) print ++n, $2, $3, $4, $5, $6; else print ++n, $2, "\"\"", $3, $4, $5 }' "$T/log_shared"
} > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "wrote $OUT: $(grep -vc '^#' "$OUT") requests"
