/* Runtime API hooks for CUDA arrays.  Arrays are opaque handles, kept in
 * their own key space; their size is what array_size.h says. */
#include <cuda_runtime_api.h>

#include "cuda/array_size.h"
#include "hooks/hook_shape.h"

GL_HOOK(cudaError_t, cudaMallocArray,
        (cudaArray_t *array, const struct cudaChannelFormatDesc *desc, size_t width, size_t height,
         unsigned int flags))
{
    GL_ARRAY_SHAPE(RUNTIME, cudaMallocArray, real(array, desc, width, height, flags), array,
               gl_array_bytes_runtime(desc, (struct cudaExtent){width, height, 0}, 1), GL_API_CUDA_MALLOC_ARRAY);
}

GL_HOOK(cudaError_t, cudaMalloc3DArray,
        (cudaArray_t *array, const struct cudaChannelFormatDesc *desc, struct cudaExtent extent,
         unsigned int flags))
{
    GL_ARRAY_SHAPE(RUNTIME, cudaMalloc3DArray, real(array, desc, extent, flags), array, gl_array_bytes_runtime(desc, extent, 1),
               GL_API_CUDA_MALLOC_3D_ARRAY);
}

GL_HOOK(cudaError_t, cudaMallocMipmappedArray,
        (cudaMipmappedArray_t *mipmappedArray, const struct cudaChannelFormatDesc *desc,
         struct cudaExtent extent, unsigned int numLevels, unsigned int flags))
{
    GL_ARRAY_SHAPE(RUNTIME, cudaMallocMipmappedArray, real(mipmappedArray, desc, extent, numLevels, flags), mipmappedArray,
               gl_array_bytes_runtime(desc, extent, numLevels), GL_API_CUDA_MALLOC_MIPMAPPED_ARRAY);
}

GL_HOOK(cudaError_t, cudaFreeArray, (cudaArray_t array))
{
    GL_FREE_SHAPE(RUNTIME, cudaFreeArray, array, GL_SPACE_ARRAY, GL_API_CUDA_FREE_ARRAY);
}

GL_HOOK(cudaError_t, cudaFreeMipmappedArray, (cudaMipmappedArray_t mipmappedArray))
{
    GL_FREE_SHAPE(RUNTIME, cudaFreeMipmappedArray, mipmappedArray, GL_SPACE_ARRAY, GL_API_CUDA_FREE_MIPMAPPED_ARRAY);
}
