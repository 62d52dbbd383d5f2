# fakecuda's libcudart.so.13 is a drop-in for NVIDIA's 13.0 runtime
# (issue 33): it exports exactly the names of libcudart_exports.txt, each
# under the version node libcudart.so.13 (torch's references are
# versioned), the list is what the toolkit's runtime exports, a name not
# implemented says so once on stderr and returns cudaErrorNotSupported, and
# kernel registration records each kernel's name.
source "$ROOT/tests/lib.sh"
LIST=$ROOT/tools/fakecuda/libcudart_exports.txt
RT=$FAKECUDA/libcudart.so.13
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}

# Exactly the list, every name at libcudart.so.13, plus the node itself.
nm -D --defined-only "$RT" >fake.nm
awk '$2 == "T" { print $3 }' fake.nm | LC_ALL=C sort >fake.txt
sed 's/$/@@libcudart.so.13/' "$LIST" | LC_ALL=C sort >want.txt
diff -u want.txt fake.txt >exports.diff || fail "exports differ from the list: $(head -5 exports.diff)"
expect_eq "$(awk '$2 != "T"' fake.nm)" "0000000000000000 A libcudart.so.13" "the version node"
expect_eq "$(wc -l <"$LIST")" 422 "functions in the list"

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

# The list is what this toolkit's runtime exports (gen-exports.sh).
skip_if '[ ! -e "$CUDA_HOME/lib64/libcudart.so.13" ]' "NVIDIA's libcudart.so.13 not in $CUDA_HOME/lib64"
"$ROOT/tools/fakecuda/gen-exports.sh" "$CUDA_HOME/lib64/libcudart.so.13" >real.txt
diff -u "$LIST" real.txt >list.diff || fail "libcudart_exports.txt is not the toolkit's list: $(head -5 list.diff)"
nm -D --defined-only "$CUDA_HOME/lib64/libcudart.so.13" | awk '$2 == "T" { print $3 }' | LC_ALL=C sort >real.nm
cmp -s real.nm fake.txt || fail "versions differ from NVIDIA's: $(diff real.nm fake.txt | head -3)"
