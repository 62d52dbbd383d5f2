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

GL_HOOK(CUresult, cuMemAlloc_v2, (CUdeviceptr *dptr, size_t bytesize))
{
    GL_REAL_OR_RETURN(real, cuMemAlloc_v2, NO_DRIVER);
    bool track = gl_enter();
    CUresult rc = real(dptr, bytesize);
    after_alloc(track, rc, DPTR(dptr), bytesize, 0, GL_KIND_DEVICE, GL_API_CU_MEM_ALLOC, 0);
    gl_leave();
    return rc;
}

GL_HOOK(CUresult, cuMemAllocPitch_v2,
        (CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes, size_t Height, unsigned int ElementSizeBytes))
{
    GL_REAL_OR_RETURN(real, cuMemAllocPitch_v2, NO_DRIVER);
    bool track = gl_enter();
    CUresult rc = real(dptr, pPitch, WidthInBytes, Height, ElementSizeBytes);
    size_t bytes = rc == CUDA_SUCCESS && pPitch != NULL ? *pPitch * Height : WidthInBytes * Height;
    after_alloc(track, rc, DPTR(dptr), bytes, 0, GL_KIND_DEVICE, GL_API_CU_MEM_ALLOC_PITCH, 0);
    gl_leave();
    return rc;
}

GL_HOOK(CUresult, cuMemAllocManaged, (CUdeviceptr *dptr, size_t bytesize, unsigned int flags))
{
    GL_REAL_OR_RETURN(real, cuMemAllocManaged, NO_DRIVER);
    bool track = gl_enter();
    CUresult rc = real(dptr, bytesize, flags);
    after_alloc(track, rc, DPTR(dptr), bytesize, 0, GL_KIND_MANAGED, GL_API_CU_MEM_ALLOC_MANAGED, 0);
    gl_leave();
    return rc;
}

GL_HOOK(CUresult, cuMemAllocHost_v2, (void **pp, size_t bytesize))
{
    GL_REAL_OR_RETURN(real, cuMemAllocHost_v2, NO_DRIVER);
    bool track = gl_enter();
    CUresult rc = real(pp, bytesize);
    after_alloc(track, rc, HPTR(pp), bytesize, 0, GL_KIND_HOST_PINNED, GL_API_CU_MEM_ALLOC_HOST, 0);
    gl_leave();
    return rc;
}

GL_HOOK(CUresult, cuMemHostAlloc, (void **pp, size_t bytesize, unsigned int Flags))
{
    GL_REAL_OR_RETURN(real, cuMemHostAlloc, NO_DRIVER);
    bool track = gl_enter();
    CUresult rc = real(pp, bytesize, Flags);
    after_alloc(track, rc, HPTR(pp), bytesize, 0, GL_KIND_HOST_PINNED, GL_API_CU_MEM_HOST_ALLOC, 0);
    gl_leave();
    return rc;
}

GL_HOOK(CUresult, cuMemHostRegister_v2, (void *p, size_t bytesize, unsigned int Flags))
{
    GL_REAL_OR_RETURN(real, cuMemHostRegister_v2, NO_DRIVER);
    bool track = gl_enter();
    CUresult rc = real(p, bytesize, Flags);
    if (track && rc == CUDA_SUCCESS && p != NULL)
        gl_call_alloc(gl_where_driver(0), (uintptr_t)p, bytesize, 0, GL_KIND_HOST_REGISTERED,
                      GL_API_CU_MEM_HOST_REGISTER, GL_SPACE_ADDR);
    gl_leave();
    return rc;
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

static CUresult alloc_async(CUresult (*real)(CUdeviceptr *, size_t, CUstream), CUdeviceptr *dptr,
                            size_t bytesize, CUstream stream, uint16_t api, bool pt)
{
    bool track = gl_enter();
    CUresult rc = real(dptr, bytesize, stream);
    after_async(track, rc, DPTR(dptr), bytesize, stream, api, 0, pt);
    gl_leave();
    return rc;
}

GL_HOOK(CUresult, cuMemAllocAsync, (CUdeviceptr *dptr, size_t bytesize, CUstream hStream))
{
    GL_REAL_OR_RETURN(real, cuMemAllocAsync, NO_DRIVER);
    return alloc_async(real, dptr, bytesize, hStream, GL_API_CU_MEM_ALLOC_ASYNC, false);
}

GL_HOOK(CUresult, cuMemAllocAsync_ptsz, (CUdeviceptr *dptr, size_t bytesize, CUstream hStream))
{
    GL_REAL_OR_RETURN(real, cuMemAllocAsync_ptsz, NO_DRIVER);
    return alloc_async(real, dptr, bytesize, hStream, GL_API_CU_MEM_ALLOC_ASYNC_PTSZ, true);
}

static CUresult alloc_from_pool(CUresult (*real)(CUdeviceptr *, size_t, CUmemoryPool, CUstream),
                                CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream stream,
                                uint16_t api, bool pt)
{
    bool track = gl_enter();
    CUresult rc = real(dptr, bytesize, pool, stream);
    after_async(track, rc, DPTR(dptr), bytesize, stream, api, (uintptr_t)pool, pt);
    gl_leave();
    return rc;
}

GL_HOOK(CUresult, cuMemAllocFromPoolAsync,
        (CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream))
{
    GL_REAL_OR_RETURN(real, cuMemAllocFromPoolAsync, NO_DRIVER);
    return alloc_from_pool(real, dptr, bytesize, pool, hStream, GL_API_CU_MEM_ALLOC_FROM_POOL_ASYNC, false);
}

GL_HOOK(CUresult, cuMemAllocFromPoolAsync_ptsz,
        (CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream))
{
    GL_REAL_OR_RETURN(real, cuMemAllocFromPoolAsync_ptsz, NO_DRIVER);
    return alloc_from_pool(real, dptr, bytesize, pool, hStream, GL_API_CU_MEM_ALLOC_FROM_POOL_ASYNC_PTSZ,
                           true);
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
