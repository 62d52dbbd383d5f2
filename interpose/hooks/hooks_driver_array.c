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

GL_HOOK(CUresult, cuArrayCreate_v2, (CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *pAllocateArray))
{
    GL_REAL_OR_RETURN(real, cuArrayCreate_v2, NO_DRIVER);
    bool track = gl_enter();
    CUresult rc = real(pHandle, pAllocateArray);
    CUDA_ARRAY3D_DESCRIPTOR d3 = {0};
    if (pAllocateArray != NULL) {
        d3.Width = pAllocateArray->Width;
        d3.Height = pAllocateArray->Height;
        d3.Format = pAllocateArray->Format;
        d3.NumChannels = pAllocateArray->NumChannels;
    }
    size_t bytes = pAllocateArray ? gl_array_bytes_driver(&d3, 1) : 0;
    after_array(track, rc, pHandle ? (void *)*pHandle : NULL, bytes, GL_API_CU_ARRAY_CREATE);
    gl_leave();
    return rc;
}

GL_HOOK(CUresult, cuArray3DCreate_v2, (CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *pAllocateArray))
{
    GL_REAL_OR_RETURN(real, cuArray3DCreate_v2, NO_DRIVER);
    bool track = gl_enter();
    CUresult rc = real(pHandle, pAllocateArray);
    after_array(track, rc, pHandle ? (void *)*pHandle : NULL, gl_array_bytes_driver(pAllocateArray, 1),
                GL_API_CU_ARRAY_3D_CREATE);
    gl_leave();
    return rc;
}

GL_HOOK(CUresult, cuMipmappedArrayCreate,
        (CUmipmappedArray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *pMipmappedArrayDesc,
         unsigned int numMipmapLevels))
{
    GL_REAL_OR_RETURN(real, cuMipmappedArrayCreate, NO_DRIVER);
    bool track = gl_enter();
    CUresult rc = real(pHandle, pMipmappedArrayDesc, numMipmapLevels);
    after_array(track, rc, pHandle ? (void *)*pHandle : NULL,
                gl_array_bytes_driver(pMipmappedArrayDesc, numMipmapLevels),
                GL_API_CU_MIPMAPPED_ARRAY_CREATE);
    gl_leave();
    return rc;
}

#define FREE_ARRAY_BODY(name, handle, api) \
    GL_RELEASE_HANDLE_BODY(name, handle, GL_SPACE_ARRAY, api, NO_DRIVER, CUDA_SUCCESS, gl_enter, gl_where_driver(0))

GL_HOOK(CUresult, cuArrayDestroy, (CUarray hArray)) { FREE_ARRAY_BODY(cuArrayDestroy, hArray, GL_API_CU_ARRAY_DESTROY); }
GL_HOOK(CUresult, cuMipmappedArrayDestroy, (CUmipmappedArray hMipmappedArray))
{
    FREE_ARRAY_BODY(cuMipmappedArrayDestroy, hMipmappedArray, GL_API_CU_MIPMAPPED_ARRAY_DESTROY);
}
