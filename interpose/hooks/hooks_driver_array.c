/* Driver API hooks for CUDA arrays (sizes: array_size.h). */
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>

#include "cuda/array_size.h"
#include "cuda/calls.h"
#include "hooks/hook.h"
#include "snapshot_format.h"

#define NO_DRIVER CUDA_ERROR_NOT_INITIALIZED

static void after_array(bool track, CUresult rc, void *handle, size_t bytes, uint16_t api)
{
    if (!track)
        return;
    if (rc == CUDA_SUCCESS && handle != NULL)
        gl_call_alloc(gl_where_driver(0), (uintptr_t)handle, bytes, 0, GL_KIND_ARRAY, api,
                      GL_SPACE_ARRAY);
    else if (rc == CUDA_ERROR_OUT_OF_MEMORY)
        gl_hook_out_of_memory(gl_where_driver(0).device, bytes, 0, GL_KIND_ARRAY, api);
}

/* The whole body of an array-creating hook: `call`, then the handle in
 * `*out` recorded with `bytes`. */
#define ARRAY_BODY(name, call, out, bytes, api) \
    GL_CALL_THEN_BODY(name, NO_DRIVER, call, after_array(track, rc, (out) ? (void *)*(out) : NULL, bytes, api))

/* cuArrayCreate's 2D descriptor, sized as the 3D one of depth 0. */
static size_t array_2d_bytes(const CUDA_ARRAY_DESCRIPTOR *a)
{
    if (a == NULL)
        return 0;
    CUDA_ARRAY3D_DESCRIPTOR d3 = {0};
    d3.Width = a->Width;
    d3.Height = a->Height;
    d3.Format = a->Format;
    d3.NumChannels = a->NumChannels;
    return gl_array_bytes_driver(&d3, 1);
}

GL_HOOK(CUresult, cuArrayCreate_v2, (CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *pAllocateArray))
{
    ARRAY_BODY(cuArrayCreate_v2, real(pHandle, pAllocateArray), pHandle, array_2d_bytes(pAllocateArray),
               GL_API_CU_ARRAY_CREATE);
}

GL_HOOK(CUresult, cuArray3DCreate_v2, (CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *pAllocateArray))
{
    ARRAY_BODY(cuArray3DCreate_v2, real(pHandle, pAllocateArray), pHandle,
               gl_array_bytes_driver(pAllocateArray, 1), GL_API_CU_ARRAY_3D_CREATE);
}

GL_HOOK(CUresult, cuMipmappedArrayCreate,
        (CUmipmappedArray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *pMipmappedArrayDesc,
         unsigned int numMipmapLevels))
{
    ARRAY_BODY(cuMipmappedArrayCreate, real(pHandle, pMipmappedArrayDesc, numMipmapLevels), pHandle,
               gl_array_bytes_driver(pMipmappedArrayDesc, numMipmapLevels), GL_API_CU_MIPMAPPED_ARRAY_CREATE);
}

#define FREE_ARRAY_BODY(name, handle, api) \
    GL_RELEASE_HANDLE_BODY(name, handle, GL_SPACE_ARRAY, api, NO_DRIVER, CUDA_SUCCESS, gl_enter, gl_where_driver(0))

GL_HOOK(CUresult, cuArrayDestroy, (CUarray hArray)) { FREE_ARRAY_BODY(cuArrayDestroy, hArray, GL_API_CU_ARRAY_DESTROY); }
GL_HOOK(CUresult, cuMipmappedArrayDestroy, (CUmipmappedArray hMipmappedArray))
{
    FREE_ARRAY_BODY(cuMipmappedArrayDestroy, hMipmappedArray, GL_API_CU_MIPMAPPED_ARRAY_DESTROY);
}
