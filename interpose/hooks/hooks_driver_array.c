/* Driver API hooks for CUDA arrays (sizes: array_size.h). */
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>

#include "cuda/array_size.h"
#include "hooks/hook_shape.h"

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
    GL_ARRAY_SHAPE(DRIVER, cuArrayCreate_v2, real(pHandle, pAllocateArray), pHandle, array_2d_bytes(pAllocateArray),
               GL_API_CU_ARRAY_CREATE);
}

GL_HOOK(CUresult, cuArray3DCreate_v2, (CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *pAllocateArray))
{
    GL_ARRAY_SHAPE(DRIVER, cuArray3DCreate_v2, real(pHandle, pAllocateArray), pHandle,
               gl_array_bytes_driver(pAllocateArray, 1), GL_API_CU_ARRAY_3D_CREATE);
}

GL_HOOK(CUresult, cuMipmappedArrayCreate,
        (CUmipmappedArray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *pMipmappedArrayDesc,
         unsigned int numMipmapLevels))
{
    GL_ARRAY_SHAPE(DRIVER, cuMipmappedArrayCreate, real(pHandle, pMipmappedArrayDesc, numMipmapLevels), pHandle,
               gl_array_bytes_driver(pMipmappedArrayDesc, numMipmapLevels), GL_API_CU_MIPMAPPED_ARRAY_CREATE);
}

GL_HOOK(CUresult, cuArrayDestroy, (CUarray hArray))
{
    GL_FREE_SHAPE(DRIVER, cuArrayDestroy, hArray, GL_SPACE_ARRAY, GL_API_CU_ARRAY_DESTROY);
}

GL_HOOK(CUresult, cuMipmappedArrayDestroy, (CUmipmappedArray hMipmappedArray))
{
    GL_FREE_SHAPE(DRIVER, cuMipmappedArrayDestroy, hMipmappedArray, GL_SPACE_ARRAY, GL_API_CU_MIPMAPPED_ARRAY_DESTROY);
}
