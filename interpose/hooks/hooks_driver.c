/* Driver API hooks (libcuda): programs that call the driver directly, and
 * every runtime that reaches it through cuGetProcAddress (procaddr.c) — the
 * static runtime's allocations are seen only here.  Same rules as the
 * runtime hooks: pass through, record the outermost call. */
#define __CUDA_API_VERSION_INTERNAL /* the un-renamed (_v2 and _ptsz) prototypes */
#include <cuda.h>

#include "cuda/calls.h"
#include "cuda/graph.h"
#include "cuda/pool_kinds.h"
#include "cuda/pools.h"
#include "hooks/hook.h"
#include "snapshot_format.h"

#define NO_DRIVER CUDA_ERROR_NOT_INITIALIZED

CUresult cuMemAllocAsync_ptsz(CUdeviceptr *, size_t, CUstream);
CUresult cuMemFreeAsync_ptsz(CUdeviceptr, CUstream);
CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *, size_t, CUmemoryPool, CUstream);

static void after_alloc(bool track, CUresult rc, uint64_t ptr, size_t size, uint64_t stream,
                        uint16_t kind, uint16_t api, uint64_t pool)
{
    if (!track)
        return;
    if (rc == CUDA_SUCCESS && ptr != 0) {
        struct gl_where w = gl_where_driver(ptr);
        if (kind == GL_KIND_POOL || pool != 0) /* stream-ordered (a managed pool's too) */
            w = gl_where_stream_ordered(w, ptr, stream, pool);
        gl_call_alloc(w, ptr, size, stream, kind, api, GL_SPACE_ADDR);
        if (pool != 0) /* an explicit pool: asked about at snapshot time */
            gl_pools_note(pool, w.device);
    }
    else if (rc == CUDA_ERROR_OUT_OF_MEMORY)
        gl_hook_out_of_memory(gl_where_failed(gl_where_driver(0).device, kind, stream), size, stream, kind, api);
}

#define DPTR(p) ((p) != NULL ? (uint64_t)*(p) : 0)
#define HPTR(p) ((p) != NULL ? (uint64_t)(uintptr_t)*(p) : 0)

/* The whole body of an allocation hook: `call`, then the allocation at
 * `ptr` of `size` bytes recorded (both read after the call). */
#define ALLOC_BODY(name, call, ptr, size, kind, api) \
    GL_CALL_THEN_BODY(name, NO_DRIVER, call, after_alloc(track, rc, ptr, size, 0, kind, api, 0))

GL_HOOK(CUresult, cuMemAlloc_v2, (CUdeviceptr *dptr, size_t bytesize))
{
    ALLOC_BODY(cuMemAlloc_v2, real(dptr, bytesize), DPTR(dptr), bytesize, GL_KIND_DEVICE, GL_API_CU_MEM_ALLOC);
}

GL_HOOK(CUresult, cuMemAllocPitch_v2,
        (CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes, size_t Height, unsigned int ElementSizeBytes))
{
    ALLOC_BODY(cuMemAllocPitch_v2, real(dptr, pPitch, WidthInBytes, Height, ElementSizeBytes), DPTR(dptr),
               rc == CUDA_SUCCESS && pPitch != NULL ? *pPitch * Height : WidthInBytes * Height, GL_KIND_DEVICE,
               GL_API_CU_MEM_ALLOC_PITCH);
}

GL_HOOK(CUresult, cuMemAllocManaged, (CUdeviceptr *dptr, size_t bytesize, unsigned int flags))
{
    ALLOC_BODY(cuMemAllocManaged, real(dptr, bytesize, flags), DPTR(dptr), bytesize, GL_KIND_MANAGED,
               GL_API_CU_MEM_ALLOC_MANAGED);
}

GL_HOOK(CUresult, cuMemAllocHost_v2, (void **pp, size_t bytesize))
{
    ALLOC_BODY(cuMemAllocHost_v2, real(pp, bytesize), HPTR(pp), bytesize, GL_KIND_HOST_PINNED,
               GL_API_CU_MEM_ALLOC_HOST);
}

GL_HOOK(CUresult, cuMemHostAlloc, (void **pp, size_t bytesize, unsigned int Flags))
{
    ALLOC_BODY(cuMemHostAlloc, real(pp, bytesize, Flags), HPTR(pp), bytesize, GL_KIND_HOST_PINNED,
               GL_API_CU_MEM_HOST_ALLOC);
}

GL_HOOK(CUresult, cuMemHostRegister_v2, (void *p, size_t bytesize, unsigned int Flags))
{
    GL_CALL_THEN_BODY(cuMemHostRegister_v2, NO_DRIVER, real(p, bytesize, Flags),
                      if (track && rc == CUDA_SUCCESS && p != NULL)
                          gl_call_alloc(gl_where_driver(0), (uintptr_t)p, bytesize, 0, GL_KIND_HOST_REGISTERED,
                                        GL_API_CU_MEM_HOST_REGISTER, GL_SPACE_ADDR));
}

/* Stream-ordered allocations and frees on a stream being captured allocate
 * and free nothing: they become nodes of the graph (graph.h), recorded when
 * a launch reaches them.  Only these calls ask whether the stream is
 * capturing; pt: the _ptsz entry point, where stream 0 is the per-thread
 * default stream. */
static void after_async(bool track, CUresult rc, uint64_t ptr, size_t size, CUstream stream, uint16_t api,
                        uint64_t pool, bool pt)
{
    if (track && rc == CUDA_SUCCESS && ptr != 0 && gl_graph_capturing((uintptr_t)stream, pt)) {
        struct gl_where w = gl_where_driver(0);
        gl_graph_node_added(ptr, size, w.device, w.ctx, api);
    } else {
        after_alloc(track, rc, ptr, size, (uintptr_t)stream, gl_pool_kind(pool), api, pool);
    }
}

/* An async allocation hook's body; pool: the explicit pool, or 0. */
#define ASYNC_BODY(name, call, dptr, size, stream, api, pool, pt) \
    GL_CALL_THEN_BODY(name, NO_DRIVER, call, after_async(track, rc, DPTR(dptr), size, stream, api, pool, pt))

GL_HOOK(CUresult, cuMemAllocAsync, (CUdeviceptr *dptr, size_t bytesize, CUstream hStream))
{
    ASYNC_BODY(cuMemAllocAsync, real(dptr, bytesize, hStream), dptr, bytesize, hStream, GL_API_CU_MEM_ALLOC_ASYNC,
               0, false);
}

GL_HOOK(CUresult, cuMemAllocAsync_ptsz, (CUdeviceptr *dptr, size_t bytesize, CUstream hStream))
{
    ASYNC_BODY(cuMemAllocAsync_ptsz, real(dptr, bytesize, hStream), dptr, bytesize, hStream,
               GL_API_CU_MEM_ALLOC_ASYNC_PTSZ, 0, true);
}

GL_HOOK(CUresult, cuMemAllocFromPoolAsync,
        (CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream))
{
    ASYNC_BODY(cuMemAllocFromPoolAsync, real(dptr, bytesize, pool, hStream), dptr, bytesize, hStream,
               GL_API_CU_MEM_ALLOC_FROM_POOL_ASYNC, (uintptr_t)pool, false);
}

GL_HOOK(CUresult, cuMemAllocFromPoolAsync_ptsz,
        (CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream))
{
    ASYNC_BODY(cuMemAllocFromPoolAsync_ptsz, real(dptr, bytesize, pool, hStream), dptr, bytesize, hStream,
               GL_API_CU_MEM_ALLOC_FROM_POOL_ASYNC_PTSZ, (uintptr_t)pool, true);
}

/* Frees.  The record is taken before the real call and settled after it. */
#define FREE_BODY(name, key, space, call, api)                                    \
    GL_REAL_OR_RETURN(real, name, NO_DRIVER);                                    \
    bool track = gl_enter() && (key) != 0;                                       \
    struct gl_live *r = track ? gl_call_free_begin(space, (uint64_t)(key)) : NULL;  \
    CUresult rc = call;                                                          \
    if (track)                                                                   \
        gl_call_free_end_api(r, rc == CUDA_SUCCESS, r ? 0 : gl_where_driver(0).device, \
                             (uint64_t)(key), api);                                   \
    gl_leave();                                                                  \
    return rc

GL_HOOK(CUresult, cuMemFree_v2, (CUdeviceptr dptr))
{
    FREE_BODY(cuMemFree_v2, dptr, GL_SPACE_ADDR, real(dptr), GL_API_CU_MEM_FREE);
}

GL_HOOK(CUresult, cuMemFreeHost, (void *p))
{
    FREE_BODY(cuMemFreeHost, (uintptr_t)p, GL_SPACE_ADDR, real(p), GL_API_CU_MEM_FREE_HOST);
}

GL_HOOK(CUresult, cuMemHostUnregister, (void *p))
{
    FREE_BODY(cuMemHostUnregister, (uintptr_t)p, GL_SPACE_ADDR, real(p), GL_API_CU_MEM_HOST_UNREGISTER);
}

/* Captured, a free is a free node: nothing is freed now. */
static CUresult free_async(CUresult (*real)(CUdeviceptr, CUstream), CUdeviceptr dptr, CUstream stream, bool pt)
{
    bool track = gl_enter() && dptr != 0 && !gl_graph_capturing((uintptr_t)stream, pt);
    struct gl_live *r = track ? gl_call_free_begin(GL_SPACE_ADDR, (uint64_t)dptr) : NULL;
    CUresult rc = real(dptr, stream);
    if (track)
        gl_call_free_end_api(r, rc == CUDA_SUCCESS, r ? 0 : gl_where_driver(0).device, dptr,
                             pt ? GL_API_CU_MEM_FREE_ASYNC_PTSZ : GL_API_CU_MEM_FREE_ASYNC);
    gl_leave();
    return rc;
}

GL_HOOK(CUresult, cuMemFreeAsync, (CUdeviceptr dptr, CUstream hStream))
{
    GL_REAL_OR_RETURN(real, cuMemFreeAsync, NO_DRIVER);
    return free_async(real, dptr, hStream, false);
}

GL_HOOK(CUresult, cuMemFreeAsync_ptsz, (CUdeviceptr dptr, CUstream hStream))
{
    GL_REAL_OR_RETURN(real, cuMemFreeAsync_ptsz, NO_DRIVER);
    return free_async(real, dptr, hStream, true);
}
