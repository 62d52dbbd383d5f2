# Every one of fakecuda's stand-ins of NVIDIA's libraries (the runtime,
# cuBLAS, cuBLASLt, the eight cuDNN libraries: each list
# tools/fakecuda/**/exports/SONAME.txt, issues 33 and 44) exports exactly
# the names of its list, each under the version node SONAME (torch's
# references are versioned); every library built in $FAKECUDA has a list;
# each list is what the toolkit's library exports (gen-exports.sh).  And
# the runtime: a name not implemented says so once on stderr and returns
# cudaErrorNotSupported, and kernel registration records each kernel's name.
source "$ROOT/tests/lib.sh"
RT=$FAKECUDA/libcudart.so.13
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
lists=$(cd "$ROOT/tools/fakecuda" && find . -path '*/exports/*.txt' | LC_ALL=C sort)
[ -n "$lists" ] || fail "no export lists under tools/fakecuda"

# Each stand-in: exactly its list, every name at SONAME, plus the node itself.
for list in $lists; do
    so=$(basename "$list" .txt)
    [ -e "$FAKECUDA/$so" ] || fail "$so (the library of $list) is not built"
    expect_eq "$(readelf -d "$FAKECUDA/$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')" "$so" "$so: its soname"
    nm -D --defined-only --with-symbol-versions "$FAKECUDA/$so" >"$so.nm"
    awk '$2 == "T" { print $3 }' "$so.nm" | LC_ALL=C sort >"$so.fake"
    sed "s/\$/@@$so/" "$ROOT/tools/fakecuda/$list" | LC_ALL=C sort >"$so.want"
    diff -u "$so.want" "$so.fake" >"$so.diff" || fail "$so exports differ from $list: $(head -5 "$so.diff")"
    expect_eq "$(awk '$2 != "T" { print $2, $3 }' "$so.nm")" "A $so" "$so: the version node"
done
# ... and no library without a list (the driver and NVML are not stand-ins
# of a versioned library: libcuda.map, fc_nvml.c).
for lib in "$FAKECUDA"/*.so.*; do
    so=$(basename "$lib")
    case $so in libcuda.so.1 | libnvidia-ml.so.1) continue ;; esac
    grep -qx "\./.*exports/$so\.txt" <<<"$lists" || fail "$so has no export list"
done
expect_eq "$(for list in $lists; do echo "$(basename "$list" .txt) $(wc -l <"$ROOT/tools/fakecuda/$list")"; done)" \
"libcublas.so.13 756
libcublasLt.so.13 184
libcudnn.so.9 224
libcudnn_adv.so.9 48
libcudnn_cnn.so.9 50
libcudnn_engines_precompiled.so.9 1
libcudnn_engines_runtime_compiled.so.9 2
libcudnn_graph.so.9 31
libcudnn_heuristic.so.9 1
libcudnn_ops.so.9 100
libcudart.so.13 422" "names in each list"

# Stubs: one line, once; cudaErrorNotSupported, also as the last error.
# Kernels: registered names come back; launches are checked.
cat >probe.py <<'PY'
import ctypes, sys
rt = ctypes.CDLL(sys.argv[1])
print(rt.cudaArrayGetInfo(None, None, None, None), rt.cudaArrayGetInfo(None, None, None, None),
      rt.cudaGetLastError(), rt.cudaGetLastError())
class dim3(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint), ("y", ctypes.c_uint), ("z", ctypes.c_uint)]
rt.__cudaRegisterFatBinary.restype = ctypes.c_void_p
h = ctypes.c_void_p(rt.__cudaRegisterFatBinary(ctypes.c_void_p(0x1234)))
stub = ctypes.create_string_buffer(1)  # any host address stands for a kernel's stub
rt.__cudaRegisterFunction(h, stub, None, b"_Z6kernelPf", -1, None, None, None, None, None)
name = ctypes.c_char_p()
print(rt.cudaFuncGetName(ctypes.byref(name), stub), name.value.decode())
launch = rt.cudaLaunchKernel
launch.argtypes = [ctypes.c_void_p, dim3, dim3, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
print(launch(ctypes.addressof(stub), dim3(4, 1, 1), dim3(256, 1, 1), None, 0, None),
      launch(ctypes.addressof(stub), dim3(4, 1, 1), dim3(2048, 1, 1), None, 0, None),
      launch(ctypes.addressof(stub), dim3(4, 1, 1), dim3(256, 1, 1), None, 0, ctypes.c_void_p(0xdead)),
      launch(ctypes.addressof(name), dim3(1, 1, 1), dim3(1, 1, 1), None, 0, None))
rt.__cudaUnregisterFatBinary(h)
print(rt.cudaFuncGetName(ctypes.byref(name), stub))
PY
# Under a sanitizer the instrumented runtime needs its runtime loaded first
# (the part of $LIBGPULEAK before libgpuleak.so); python3 itself leaks by design.
san_rt=; [ -n "$GL_SAN" ] && san_rt=${LIBGPULEAK%:*}
LD_PRELOAD=$san_rt ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 FAKECUDA_DEVICES=1 fc python3 probe.py "$RT" >probe.out 2>probe.err || fail "probe exited $?: $(cat probe.err)"
expect_eq "$(cat probe.err)" "fakecuda: cudaArrayGetInfo is not implemented (cudaErrorNotSupported)" "the stub's line"
# 801 cudaErrorNotSupported; 9 invalid configuration; 400 invalid handle
# (a stream that is none); 98 invalid device function.
expect_eq "$(cat probe.out)" "801 801 801 0
0 _Z6kernelPf
0 9 400 98
98" "stub codes, kernel names and launches"

# Each list is what this toolkit's library exports, at NVIDIA's versions.
for list in $lists; do
    so=$(basename "$list" .txt)
    skip_if "[ ! -e '$CUDA_HOME/lib64/$so' ]" "NVIDIA's $so not in $CUDA_HOME/lib64"
    "$ROOT/tools/fakecuda/gen-exports.sh" "$CUDA_HOME/lib64/$so" >"$so.real"
    diff -u "$ROOT/tools/fakecuda/$list" "$so.real" >"$so.ldiff" || fail "$list is not the toolkit's list: $(head -5 "$so.ldiff")"
    nm -D --defined-only --with-symbol-versions "$CUDA_HOME/lib64/$so" |
        awk '$2 == "T" && $3 !~ /^_Z/ { print $3 }' | LC_ALL=C sort >"$so.realv"
    cmp -s "$so.realv" "$so.fake" || fail "$so: versions differ from NVIDIA's: $(diff "$so.realv" "$so.fake" | head -3)"
done
