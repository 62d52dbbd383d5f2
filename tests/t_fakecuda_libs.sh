# fakecuda: the shape of the libraries -- sonames, no libcuda in the shared
# runtime's DT_NEEDED (it dlopens the driver via RUNPATH $ORIGIN), only the
# API exported, and the entry points interposers care about present.
source "$ROOT/tests/lib.sh"
RT=$FAKECUDA/libcudart.so.13 DRV=$FAKECUDA/libcuda.so.1
readelf -d "$RT" | grep -q 'SONAME.*\[libcudart.so.13\]' || fail "libcudart soname"
readelf -d "$DRV" | grep -q 'SONAME.*\[libcuda.so.1\]' || fail "libcuda soname"
if readelf -d "$RT" | grep NEEDED | grep -q libcuda; then fail "libcudart links libcuda"; fi
readelf -d "$RT" | grep -q 'RUNPATH.*\[\$ORIGIN\]' || fail "libcudart has no RUNPATH \$ORIGIN"
[ "$(readlink "$FAKECUDA/libcuda.so")" = libcuda.so.1 ] || fail "libcuda.so symlink"
[ "$(readlink "$FAKECUDA/libcudart.so")" = libcudart.so.13 ] || fail "libcudart.so symlink"
# The runtime reaches the driver only through dlopen + cuGetProcAddress.
rt_undef=$(nm -D --undefined-only "$RT")
if grep -q ' cu' <<<"$rt_undef"; then fail "libcudart references cu* symbols"; fi
# (listings captured first: grep -q closing a pipe early trips pipefail)
drv_syms=$(nm -D --defined-only "$DRV" | awk '{print $3}')
rt_syms=$(nm -D --defined-only "$RT" | awk '{sub(/@.*/, "", $3); print $3}')
# Only the runtime API (and its version node); the exact set: t_fakecuda_exports.sh.
if grep -vEq '^(cuda|__cuda|libcudart\.so\.13$)' <<<"$rt_syms"; then fail "libcudart exports non-cuda symbols"; fi
if grep -vq '^cu' <<<"$drv_syms"; then fail "libcuda exports non-cu symbols"; fi
for s in cuGetProcAddress cuGetProcAddress_v2 cuInit cuMemAlloc_v2 cuMemFree_v2 cuMemAllocAsync \
         cuMemAllocAsync_ptsz cuMemFreeAsync_ptsz cuMemAllocFromPoolAsync_ptsz cuCtxCreate_v4 \
         cuCtxDestroy_v2 cuDevicePrimaryCtxReset_v2 cuMemCreate cuMemMap cuMemRelease cuArrayCreate_v2 \
         cuMemHostRegister_v2 cuMemPoolCreate cuMemAllocManaged cuMemAllocPitch_v2 cuMemAllocHost_v2; do
    grep -qx "$s" <<<"$drv_syms" || fail "libcuda lacks $s"
done
for s in cudaMalloc cudaFree cudaMallocAsync cudaMallocAsync_ptsz cudaFreeAsync_ptsz \
         cudaMallocFromPoolAsync cudaMallocManaged cudaMallocPitch cudaMalloc3D cudaMallocArray \
         cudaMalloc3DArray cudaMallocMipmappedArray cudaFreeArray cudaFreeMipmappedArray cudaMallocHost \
         cudaHostAlloc cudaFreeHost cudaHostRegister cudaHostUnregister cudaMemPoolCreate cudaDeviceReset \
         cudaGetDriverEntryPoint cudaGetDriverEntryPointByVersion; do
    grep -qx "$s" <<<"$rt_syms" || fail "libcudart lacks $s"
done
