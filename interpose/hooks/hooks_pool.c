/* Pool creation and destruction.  A pool is an owner: it holds memory for
 * the program (its reserve) until cuMemPoolDestroy, so it is recorded
 * (kind mempool, the creating stack, the pool's location) from creation to
 * destruction, not counted in usage (its allocations are), its size filled
 * in with its reserve when a snapshot is written; and pools.c is told, so
 * that reserve is asked.  Also which pools hand out managed memory
 * (pool_kinds.h).  The runtime's cudaMemPoolCreate/Destroy reach the
 * driver's (NVIDIA's runtime fetches cuMemPoolCreate@11020), so these two
 * see both. */
#include <cuda.h>

#include "cuda/calls.h"
#include "cuda/pool_kinds.h"
#include "cuda/pools.h"
#include "hooks/hook.h"
#include "snapshot_format.h"
#include "state/track.h"

#define NO_DRIVER CUDA_ERROR_NOT_INITIALIZED

GL_HOOK(CUresult, cuMemPoolCreate, (CUmemoryPool *pool, const CUmemPoolProps *poolProps))
{
    GL_REAL_OR_RETURN(real, cuMemPoolCreate, NO_DRIVER);
    bool track = gl_enter();
    CUresult rc = real(pool, poolProps);
    if (track && rc == CUDA_SUCCESS && pool != NULL && poolProps != NULL) {
        gl_pool_kinds_created((uintptr_t)*pool, poolProps->allocType == CU_MEM_ALLOCATION_TYPE_MANAGED);
        struct gl_where w = gl_where_driver(0);
        if (poolProps->location.type == CU_MEM_LOCATION_TYPE_DEVICE)
            w.device = poolProps->location.id;
        else if (poolProps->location.type != CU_MEM_LOCATION_TYPE_NONE)
            w.device = -1; /* a host or host-NUMA pool */
        gl_call_alloc(w, (uintptr_t)*pool, 0, 0, GL_KIND_MEMPOOL, GL_API_CU_MEM_POOL_CREATE, GL_SPACE_POOL);
        gl_pools_note((uintptr_t)*pool, w.device);
    }
    gl_leave();
    return rc;
}

GL_HOOK(CUresult, cuMemPoolDestroy, (CUmemoryPool pool))
{
    GL_REAL_OR_RETURN(real, cuMemPoolDestroy, NO_DRIVER);
    bool track = gl_enter();
    /* Taken before the call: the handle value may be handed out again. */
    struct gl_live *r = track ? gl_call_free_begin(GL_SPACE_POOL, (uintptr_t)pool) : NULL;
    CUresult rc = real(pool);
    if (track) {
        if (r != NULL)
            gl_call_free_end(r, rc == CUDA_SUCCESS, 0);
        if (rc == CUDA_SUCCESS)
            gl_pool_kinds_destroyed((uintptr_t)pool);
    }
    gl_leave();
    return rc;
}

/* CUDA 13.0 names pools by location and allocation type.  A managed pool
 * handed out here (a location's default or current managed pool) was never
 * created by the program, so this is where gpuleak learns that allocations
 * from it are managed memory.  Pinned pools need nothing: theirs are pool
 * memory already. */
static void note_managed(CUresult rc, CUmemoryPool *pool, CUmemAllocationType type)
{
    if (rc == CUDA_SUCCESS && pool != NULL && type == CU_MEM_ALLOCATION_TYPE_MANAGED)
        gl_pool_kinds_created((uintptr_t)*pool, 1);
}

GL_HOOK(CUresult, cuMemGetDefaultMemPool, (CUmemoryPool *pool_out, CUmemLocation *location, CUmemAllocationType type))
{
    GL_CALL_THEN_BODY(cuMemGetDefaultMemPool, NO_DRIVER, real(pool_out, location, type),
                      if (track)
                          note_managed(rc, pool_out, type));
}

GL_HOOK(CUresult, cuMemGetMemPool, (CUmemoryPool *pool, CUmemLocation *location, CUmemAllocationType type))
{
    GL_CALL_THEN_BODY(cuMemGetMemPool, NO_DRIVER, real(pool, location, type),
                      if (track)
                          note_managed(rc, pool, type));
}
