/* Pool creation and destruction: which explicit pools hand out managed
 * memory (pool_kinds.h).  The runtime's cudaMemPoolCreate/Destroy reach the
 * driver's (NVIDIA's runtime fetches cuMemPoolCreate@11020), so these two
 * see both. */
#include <cuda.h>

#include "hook.h"
#include "pool_kinds.h"

#define NO_DRIVER CUDA_ERROR_NOT_INITIALIZED

GL_HOOK(CUresult, cuMemPoolCreate, (CUmemoryPool *pool, const CUmemPoolProps *poolProps))
{
    GL_REAL_OR_RETURN(real, cuMemPoolCreate, NO_DRIVER);
    bool track = gl_enter();
    CUresult rc = real(pool, poolProps);
    if (track && rc == CUDA_SUCCESS && pool != NULL && poolProps != NULL)
        gl_pool_kinds_created((uintptr_t)*pool, poolProps->allocType == CU_MEM_ALLOCATION_TYPE_MANAGED);
    gl_leave();
    return rc;
}

GL_HOOK(CUresult, cuMemPoolDestroy, (CUmemoryPool pool))
{
    GL_REAL_OR_RETURN(real, cuMemPoolDestroy, NO_DRIVER);
    bool track = gl_enter();
    CUresult rc = real(pool);
    if (track && rc == CUDA_SUCCESS)
        gl_pool_kinds_destroyed((uintptr_t)pool);
    gl_leave();
    return rc;
}
