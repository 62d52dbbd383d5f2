/* Runtime API hooks (libcudart), for programs and libraries that call the
 * shared runtime.  Each hook calls the real function and, if it is the
 * outermost intercepted call on this thread, records the outcome; the driver
 * calls the runtime makes underneath pass straight through (internal.h).
 * Return values and out-parameters are never changed; a failed call is never
 * recorded as live. */
#include <cuda_runtime_api.h>

#include "hooks/hook_shape.h"

/* The _ptsz entry points exist in the library but cuda_runtime_api.h only
 * declares them under CUDA_API_PER_THREAD_DEFAULT_STREAM. */
cudaError_t cudaMallocAsync_ptsz(void **, size_t, cudaStream_t);
cudaError_t cudaFreeAsync_ptsz(void *, cudaStream_t);
cudaError_t cudaMallocFromPoolAsync_ptsz(void **, size_t, cudaMemPool_t, cudaStream_t);

GL_HOOK(cudaError_t, cudaMalloc, (void **devPtr, size_t size))
{
    GL_ALLOC_SHAPE(RUNTIME, cudaMalloc, real(devPtr, size), GL_OUT(devPtr), size, GL_KIND_DEVICE,
                   GL_API_CUDA_MALLOC);
}

GL_HOOK(cudaError_t, cudaMallocManaged, (void **devPtr, size_t size, unsigned int flags))
{
    GL_ALLOC_SHAPE(RUNTIME, cudaMallocManaged, real(devPtr, size, flags), GL_OUT(devPtr), size, GL_KIND_MANAGED,
                   GL_API_CUDA_MALLOC_MANAGED);
}

GL_HOOK(cudaError_t, cudaMallocPitch, (void **devPtr, size_t *pitch, size_t width, size_t height))
{
    GL_ALLOC_SHAPE(RUNTIME, cudaMallocPitch, real(devPtr, pitch, width, height), GL_OUT(devPtr),
                   rc == cudaSuccess && pitch != NULL ? *pitch * height : width * height, GL_KIND_DEVICE,
                   GL_API_CUDA_MALLOC_PITCH);
}

/* cudaMalloc3D hands back a pitched pointer: its bytes are pitch x height x
 * depth (a zero height or depth counts as 1). */
static size_t bytes_3d(cudaError_t rc, const struct cudaPitchedPtr *p, struct cudaExtent extent)
{
    size_t h = extent.height ? extent.height : 1, d = extent.depth ? extent.depth : 1;
    size_t pitch = rc == cudaSuccess && p != NULL && p->ptr != NULL ? p->pitch : extent.width;
    return pitch * h * d;
}

GL_HOOK(cudaError_t, cudaMalloc3D, (struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent))
{
    GL_ALLOC_SHAPE(RUNTIME, cudaMalloc3D, real(pitchedDevPtr, extent),
                   rc == cudaSuccess && pitchedDevPtr != NULL ? (uintptr_t)pitchedDevPtr->ptr : 0,
                   bytes_3d(rc, pitchedDevPtr, extent), GL_KIND_DEVICE, GL_API_CUDA_MALLOC_3D);
}

GL_HOOK(cudaError_t, cudaMallocAsync, (void **devPtr, size_t size, cudaStream_t stream))
{
    GL_ASYNC_SHAPE(RUNTIME, cudaMallocAsync, real(devPtr, size, stream), devPtr, size, stream,
                   GL_API_CUDA_MALLOC_ASYNC, 0, false);
}

GL_HOOK(cudaError_t, cudaMallocAsync_ptsz, (void **devPtr, size_t size, cudaStream_t stream))
{
    GL_ASYNC_SHAPE(RUNTIME, cudaMallocAsync_ptsz, real(devPtr, size, stream), devPtr, size, stream,
                   GL_API_CUDA_MALLOC_ASYNC_PTSZ, 0, true);
}

GL_HOOK(cudaError_t, cudaMallocFromPoolAsync,
        (void **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream))
{
    GL_ASYNC_SHAPE(RUNTIME, cudaMallocFromPoolAsync, real(ptr, size, memPool, stream), ptr, size, stream,
                   GL_API_CUDA_MALLOC_FROM_POOL_ASYNC, (uintptr_t)memPool, false);
}

GL_HOOK(cudaError_t, cudaMallocFromPoolAsync_ptsz,
        (void **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream))
{
    GL_ASYNC_SHAPE(RUNTIME, cudaMallocFromPoolAsync_ptsz, real(ptr, size, memPool, stream), ptr, size, stream,
                   GL_API_CUDA_MALLOC_FROM_POOL_ASYNC_PTSZ, (uintptr_t)memPool, true);
}

GL_HOOK(cudaError_t, cudaMallocHost, (void **ptr, size_t size))
{
    GL_ALLOC_SHAPE(RUNTIME, cudaMallocHost, real(ptr, size), GL_OUT(ptr), size, GL_KIND_HOST_PINNED,
                   GL_API_CUDA_MALLOC_HOST);
}

GL_HOOK(cudaError_t, cudaHostAlloc, (void **pHost, size_t size, unsigned int flags))
{
    GL_ALLOC_SHAPE(RUNTIME, cudaHostAlloc, real(pHost, size, flags), GL_OUT(pHost), size, GL_KIND_HOST_PINNED,
                   GL_API_CUDA_HOST_ALLOC);
}

GL_HOOK(cudaError_t, cudaHostRegister, (void *ptr, size_t size, unsigned int flags))
{
    GL_REGISTER_SHAPE(RUNTIME, cudaHostRegister, real(ptr, size, flags), ptr, size, GL_API_CUDA_HOST_REGISTER);
}

GL_HOOK(cudaError_t, cudaFree, (void *devPtr))
{
    GL_FREE_SHAPE(RUNTIME, cudaFree, devPtr, GL_SPACE_ADDR, GL_API_CUDA_FREE);
}

GL_HOOK(cudaError_t, cudaFreeHost, (void *ptr))
{
    GL_FREE_SHAPE(RUNTIME, cudaFreeHost, ptr, GL_SPACE_ADDR, GL_API_CUDA_FREE_HOST);
}

GL_HOOK(cudaError_t, cudaHostUnregister, (void *ptr))
{
    GL_FREE_SHAPE(RUNTIME, cudaHostUnregister, ptr, GL_SPACE_ADDR, GL_API_CUDA_HOST_UNREGISTER);
}

GL_HOOK(cudaError_t, cudaFreeAsync, (void *devPtr, cudaStream_t stream))
{
    GL_FREE_ASYNC_SHAPE(RUNTIME, cudaFreeAsync, devPtr, stream, GL_API_CUDA_FREE_ASYNC, false);
}

GL_HOOK(cudaError_t, cudaFreeAsync_ptsz, (void *devPtr, cudaStream_t stream))
{
    GL_FREE_ASYNC_SHAPE(RUNTIME, cudaFreeAsync_ptsz, devPtr, stream, GL_API_CUDA_FREE_ASYNC_PTSZ, true);
}

/* Records nothing: PyTorch's first CUDA use, before its first allocation,
 * when its recorder is to be on from the start (control/torch_recorder.h).
 * Not gl_enter: a query starts no tracking (a program that only asks how
 * many devices there are still writes no snapshot); outside tracking, or
 * inside another hook, it only passes through. */
GL_HOOK(cudaError_t, cudaGetDeviceCount, (int *count))
{
    GL_REAL_OR_RETURN(real, cudaGetDeviceCount, GL_FAM_RUNTIME_NO_LIB);
    cudaError_t rc = real(count);
    if (gl_hook_depth == 0 && gl_tracking_active())
        gl_torch_note_cuda_use(); /* at most a pending call, never Python here */
    return rc;
}

GL_HOOK(cudaError_t, cudaDeviceReset, (void))
{
    GL_REAL_OR_RETURN(real, cudaDeviceReset, GL_FAM_RUNTIME_NO_LIB);
    bool track = gl_enter();
    /* With a context of the program's own current (not the primary one),
     * cudaDeviceReset destroys only the runtime's state for it, not memory
     * (CUDA documents it so): nothing to drop.  A green context's CUcontext
     * is counted as such here (cuda/where.h), as before green contexts
     * were followed. */
    bool primary = track && gl_where_driver(0).ctx == 0 && !gl_where_green_current();
    int32_t device = primary ? gl_where_runtime().device : 0;
    cudaError_t rc = real();
    gl_where_devices_forget_all(); /* the primary context current on threads is gone */
    /* Everything the primary context owned is gone (not stream-ordered
     * allocations: gl_track_drop_context). */
    if (primary && rc == cudaSuccess)
        gl_track_drop_context(device, 0, GL_API_CUDA_DEVICE_RESET);
    gl_leave();
    return rc;
}
