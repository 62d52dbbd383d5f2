/* Runtime API hooks (libcudart), for programs and libraries that call the
 * shared runtime.  Each hook calls the real function and, if it is the
 * outermost intercepted call on this thread, records the outcome; the driver
 * calls the runtime makes underneath pass straight through (internal.h).
 * Return values and out-parameters are never changed; a failed call is never
 * recorded as live. */
#include <cuda_runtime_api.h>

#include "control/torch_view.h"
#include "cuda/calls.h"
#include "cuda/graph.h"
#include "cuda/pool_kinds.h"
#include "cuda/pools.h"
#include "hooks/hook.h"
#include "snapshot_format.h"

/* What a hook returns when the real runtime cannot be found: only possible if
 * the program calls CUDA without libcudart being loaded. */
#define NO_RUNTIME cudaErrorInitializationError

/* The _ptsz entry points exist in the library but cuda_runtime_api.h only
 * declares them under CUDA_API_PER_THREAD_DEFAULT_STREAM. */
cudaError_t cudaMallocAsync_ptsz(void **, size_t, cudaStream_t);
cudaError_t cudaFreeAsync_ptsz(void *, cudaStream_t);
cudaError_t cudaMallocFromPoolAsync_ptsz(void **, size_t, cudaMemPool_t, cudaStream_t);

static void after_alloc(bool track, cudaError_t rc, void *ptr, size_t size, uint64_t stream,
                        uint16_t kind, uint16_t api, uint64_t pool)
{
    if (!track)
        return;
    if (rc == cudaSuccess && ptr != NULL) {
        struct gl_where w = gl_where_runtime();
        if (kind == GL_KIND_POOL || pool != 0) /* stream-ordered (a managed pool's too) */
            w = gl_where_stream_ordered(w, (uintptr_t)ptr, stream, pool);
        gl_call_alloc(w, (uintptr_t)ptr, size, stream, kind, api, GL_SPACE_ADDR);
        gl_torch_note_alloc(); /* PyTorch's stacks: at most a pending call, never Python here */
        if (pool != 0) /* an explicit pool: asked about at snapshot time */
            gl_pools_note(pool, w.device);
    }
    else if (rc == cudaErrorMemoryAllocation)
        gl_hook_out_of_memory(gl_where_failed(gl_where_runtime().device, kind, stream), size, stream, kind, api);
}

#define OUT(p) ((p) != NULL ? *(p) : NULL)

/* The whole body of an allocation hook: `call`, then the allocation at
 * `ptr` of `size` bytes recorded (both read after the call). */
#define ALLOC_BODY(name, call, ptr, size, kind, api) \
    GL_CALL_THEN_BODY(name, NO_RUNTIME, call, after_alloc(track, rc, ptr, size, 0, kind, api, 0))

GL_HOOK(cudaError_t, cudaMalloc, (void **devPtr, size_t size))
{
    ALLOC_BODY(cudaMalloc, real(devPtr, size), OUT(devPtr), size, GL_KIND_DEVICE, GL_API_CUDA_MALLOC);
}

GL_HOOK(cudaError_t, cudaMallocManaged, (void **devPtr, size_t size, unsigned int flags))
{
    ALLOC_BODY(cudaMallocManaged, real(devPtr, size, flags), OUT(devPtr), size, GL_KIND_MANAGED,
               GL_API_CUDA_MALLOC_MANAGED);
}

GL_HOOK(cudaError_t, cudaMallocPitch, (void **devPtr, size_t *pitch, size_t width, size_t height))
{
    ALLOC_BODY(cudaMallocPitch, real(devPtr, pitch, width, height), OUT(devPtr),
               rc == cudaSuccess && pitch != NULL ? *pitch * height : width * height, GL_KIND_DEVICE,
               GL_API_CUDA_MALLOC_PITCH);
}

/* cudaMalloc3D hands back a pitched pointer: its bytes are pitch x height x
 * depth (a zero height or depth counts as 1). */
static void after_3d(bool track, cudaError_t rc, const struct cudaPitchedPtr *p, struct cudaExtent extent)
{
    size_t h = extent.height ? extent.height : 1, d = extent.depth ? extent.depth : 1;
    void *ptr = rc == cudaSuccess && p != NULL ? p->ptr : NULL;
    size_t pitch = ptr != NULL ? p->pitch : extent.width;
    after_alloc(track, rc, ptr, pitch * h * d, 0, GL_KIND_DEVICE, GL_API_CUDA_MALLOC_3D, 0);
}

GL_HOOK(cudaError_t, cudaMalloc3D, (struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent))
{
    GL_CALL_THEN_BODY(cudaMalloc3D, NO_RUNTIME, real(pitchedDevPtr, extent),
                      after_3d(track, rc, pitchedDevPtr, extent));
}

/* Stream-ordered allocations and frees on a stream being captured allocate
 * and free nothing: they become nodes of the graph (graph.h), recorded when
 * a launch reaches them.  Only these calls ask whether the stream is
 * capturing; pt: the _ptsz entry point, where stream 0 is the per-thread
 * default stream. */
static void after_async(bool track, cudaError_t rc, void *ptr, size_t size, cudaStream_t stream,
                        uint16_t api, uint64_t pool, bool pt)
{
    if (track && rc == cudaSuccess && ptr != NULL && gl_graph_capturing((uintptr_t)stream, pt))
        gl_graph_node_added((uintptr_t)ptr, size, gl_where_runtime().device, 0, api);
    else
        after_alloc(track, rc, ptr, size, (uintptr_t)stream, gl_pool_kind(pool), api, pool);
}

/* An async allocation hook's body; pool: the explicit pool, or 0. */
#define ASYNC_BODY(name, call, ptr, size, stream, api, pool, pt) \
    GL_CALL_THEN_BODY(name, NO_RUNTIME, call, after_async(track, rc, OUT(ptr), size, stream, api, pool, pt))

GL_HOOK(cudaError_t, cudaMallocAsync, (void **devPtr, size_t size, cudaStream_t stream))
{
    ASYNC_BODY(cudaMallocAsync, real(devPtr, size, stream), devPtr, size, stream, GL_API_CUDA_MALLOC_ASYNC, 0,
               false);
}

GL_HOOK(cudaError_t, cudaMallocAsync_ptsz, (void **devPtr, size_t size, cudaStream_t stream))
{
    ASYNC_BODY(cudaMallocAsync_ptsz, real(devPtr, size, stream), devPtr, size, stream,
               GL_API_CUDA_MALLOC_ASYNC_PTSZ, 0, true);
}

GL_HOOK(cudaError_t, cudaMallocFromPoolAsync,
        (void **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream))
{
    ASYNC_BODY(cudaMallocFromPoolAsync, real(ptr, size, memPool, stream), ptr, size, stream,
               GL_API_CUDA_MALLOC_FROM_POOL_ASYNC, (uintptr_t)memPool, false);
}

GL_HOOK(cudaError_t, cudaMallocFromPoolAsync_ptsz,
        (void **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream))
{
    ASYNC_BODY(cudaMallocFromPoolAsync_ptsz, real(ptr, size, memPool, stream), ptr, size, stream,
               GL_API_CUDA_MALLOC_FROM_POOL_ASYNC_PTSZ, (uintptr_t)memPool, true);
}

GL_HOOK(cudaError_t, cudaMallocHost, (void **ptr, size_t size))
{
    ALLOC_BODY(cudaMallocHost, real(ptr, size), OUT(ptr), size, GL_KIND_HOST_PINNED, GL_API_CUDA_MALLOC_HOST);
}

GL_HOOK(cudaError_t, cudaHostAlloc, (void **pHost, size_t size, unsigned int flags))
{
    ALLOC_BODY(cudaHostAlloc, real(pHost, size, flags), OUT(pHost), size, GL_KIND_HOST_PINNED,
               GL_API_CUDA_HOST_ALLOC);
}

GL_HOOK(cudaError_t, cudaHostRegister, (void *ptr, size_t size, unsigned int flags))
{
    GL_CALL_THEN_BODY(cudaHostRegister, NO_RUNTIME, real(ptr, size, flags),
                      if (track && rc == cudaSuccess && ptr != NULL)
                          gl_call_alloc(gl_where_runtime(), (uintptr_t)ptr, size, 0, GL_KIND_HOST_REGISTERED,
                                        GL_API_CUDA_HOST_REGISTER, GL_SPACE_ADDR));
}

/* Frees.  The record is taken before the real call (the address may be
 * handed out again as soon as it returns) and settled after it. */
#define FREE_BODY(name, ptr, call, api)                                          \
    GL_REAL_OR_RETURN(real, name, NO_RUNTIME);                                   \
    bool track = gl_enter() && (ptr) != NULL;                                    \
    struct gl_live *r = track ? gl_call_free_begin(GL_SPACE_ADDR, (uintptr_t)(ptr)) : NULL; \
    cudaError_t rc = call;                                                       \
    if (track)                                                                   \
        gl_call_free_end_api(r, rc == cudaSuccess, r ? 0 : gl_where_runtime().device, \
                             (uintptr_t)(ptr), api);                                  \
    gl_leave();                                                                  \
    return rc

GL_HOOK(cudaError_t, cudaFree, (void *devPtr)) { FREE_BODY(cudaFree, devPtr, real(devPtr), GL_API_CUDA_FREE); }
GL_HOOK(cudaError_t, cudaFreeHost, (void *ptr)) { FREE_BODY(cudaFreeHost, ptr, real(ptr), GL_API_CUDA_FREE_HOST); }
GL_HOOK(cudaError_t, cudaHostUnregister, (void *ptr))
{
    FREE_BODY(cudaHostUnregister, ptr, real(ptr), GL_API_CUDA_HOST_UNREGISTER);
}

/* Captured, a free is a free node: nothing is freed now. */
static cudaError_t free_async(cudaError_t (*real)(void *, cudaStream_t), void *devPtr, cudaStream_t stream,
                              bool pt)
{
    bool track = gl_enter() && devPtr != NULL && !gl_graph_capturing((uintptr_t)stream, pt);
    struct gl_live *r = track ? gl_call_free_begin(GL_SPACE_ADDR, (uintptr_t)devPtr) : NULL;
    cudaError_t rc = real(devPtr, stream);
    if (track)
        gl_call_free_end_api(r, rc == cudaSuccess, r ? 0 : gl_where_runtime().device, (uintptr_t)devPtr,
                             pt ? GL_API_CUDA_FREE_ASYNC_PTSZ : GL_API_CUDA_FREE_ASYNC);
    gl_leave();
    return rc;
}

GL_HOOK(cudaError_t, cudaFreeAsync, (void *devPtr, cudaStream_t stream))
{
    GL_REAL_OR_RETURN(real, cudaFreeAsync, NO_RUNTIME);
    return free_async(real, devPtr, stream, false);
}

GL_HOOK(cudaError_t, cudaFreeAsync_ptsz, (void *devPtr, cudaStream_t stream))
{
    GL_REAL_OR_RETURN(real, cudaFreeAsync_ptsz, NO_RUNTIME);
    return free_async(real, devPtr, stream, true);
}

/* Records nothing: PyTorch's first CUDA use, before its first allocation,
 * when its recorder is to be on from the start (control/torch_recorder.h).
 * Not gl_enter: a query starts no tracking (a program that only asks how
 * many devices there are still writes no snapshot); outside tracking, or
 * inside another hook, it only passes through. */
GL_HOOK(cudaError_t, cudaGetDeviceCount, (int *count))
{
    GL_REAL_OR_RETURN(real, cudaGetDeviceCount, NO_RUNTIME);
    cudaError_t rc = real(count);
    if (gl_hook_depth == 0 && gl_tracking_active())
        gl_torch_note_cuda_use(); /* at most a pending call, never Python here */
    return rc;
}

GL_HOOK(cudaError_t, cudaDeviceReset, (void))
{
    GL_REAL_OR_RETURN(real, cudaDeviceReset, NO_RUNTIME);
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
