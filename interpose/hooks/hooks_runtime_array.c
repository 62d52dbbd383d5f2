/* Runtime API hooks for CUDA arrays.  Arrays are opaque handles, kept in
 * their own key space; their size is what array_size.h says. */
#include <cuda_runtime_api.h>

#include "cuda/array_size.h"
#include "cuda/calls.h"
#include "hooks/hook.h"
#include "snapshot_format.h"

#define NO_RUNTIME cudaErrorInitializationError

static void after_array(bool track, cudaError_t rc, void *handle, size_t bytes, uint16_t api)
{
    if (!track)
        return;
    if (rc == cudaSuccess && handle != NULL)
        gl_call_alloc(gl_where_runtime(), (uintptr_t)handle, bytes, 0, GL_KIND_ARRAY, api,
                      GL_SPACE_ARRAY);
    else if (rc == cudaErrorMemoryAllocation)
        gl_hook_out_of_memory(gl_where_runtime().device, bytes, 0, GL_KIND_ARRAY, api);
}

/* The whole body of an array-creating hook: `call`, then the handle in
 * `*out` recorded with `bytes`. */
#define ARRAY_BODY(name, call, out, bytes, api) \
    GL_CALL_THEN_BODY(name, NO_RUNTIME, call, after_array(track, rc, (out) ? (void *)*(out) : NULL, bytes, api))

GL_HOOK(cudaError_t, cudaMallocArray,
        (cudaArray_t *array, const struct cudaChannelFormatDesc *desc, size_t width, size_t height,
         unsigned int flags))
{
    ARRAY_BODY(cudaMallocArray, real(array, desc, width, height, flags), array,
               gl_array_bytes_runtime(desc, (struct cudaExtent){width, height, 0}, 1), GL_API_CUDA_MALLOC_ARRAY);
}

GL_HOOK(cudaError_t, cudaMalloc3DArray,
        (cudaArray_t *array, const struct cudaChannelFormatDesc *desc, struct cudaExtent extent,
         unsigned int flags))
{
    ARRAY_BODY(cudaMalloc3DArray, real(array, desc, extent, flags), array, gl_array_bytes_runtime(desc, extent, 1),
               GL_API_CUDA_MALLOC_3D_ARRAY);
}

GL_HOOK(cudaError_t, cudaMallocMipmappedArray,
        (cudaMipmappedArray_t *mipmappedArray, const struct cudaChannelFormatDesc *desc,
         struct cudaExtent extent, unsigned int numLevels, unsigned int flags))
{
    ARRAY_BODY(cudaMallocMipmappedArray, real(mipmappedArray, desc, extent, numLevels, flags), mipmappedArray,
               gl_array_bytes_runtime(desc, extent, numLevels), GL_API_CUDA_MALLOC_MIPMAPPED_ARRAY);
}

#define FREE_ARRAY_BODY(name, handle, api) \
    GL_RELEASE_HANDLE_BODY(name, handle, GL_SPACE_ARRAY, api, NO_RUNTIME, cudaSuccess, gl_enter, gl_where_runtime())

GL_HOOK(cudaError_t, cudaFreeArray, (cudaArray_t array)) { FREE_ARRAY_BODY(cudaFreeArray, array, GL_API_CUDA_FREE_ARRAY); }
GL_HOOK(cudaError_t, cudaFreeMipmappedArray, (cudaMipmappedArray_t mipmappedArray))
{
    FREE_ARRAY_BODY(cudaFreeMipmappedArray, mipmappedArray, GL_API_CUDA_FREE_MIPMAPPED_ARRAY);
}
