/* Runtime API hooks for CUDA arrays.  Arrays are opaque handles, kept in
 * their own key space; their size is the logical size of the texels
 * (width x height x depth x element size, summed over mipmap levels), which
 * is what the program asked for; the driver may round it up. */
#include <cuda_runtime_api.h>

#include "hook.h"
#include "record.h"
#include "snapshot_format.h"

#define NO_RUNTIME cudaErrorInitializationError

static size_t element_bytes(const struct cudaChannelFormatDesc *d)
{
    if (d == NULL)
        return 1;
    int bits = d->x + d->y + d->z + d->w;
    return bits > 0 ? (size_t)(bits + 7) / 8 : 1;
}

static size_t max1(size_t v) { return v ? v : 1; }

static void after_array(bool track, cudaError_t rc, void *handle, size_t bytes, uint16_t api)
{
    if (!track)
        return;
    if (rc == cudaSuccess && handle != NULL)
        gl_record_alloc(gl_runtime_where(), (uintptr_t)handle, bytes, 0, GL_KIND_ARRAY, api,
                        GL_SPACE_ARRAY);
    else if (rc == cudaErrorMemoryAllocation)
        gl_record_failed(gl_runtime_where().device, bytes, 0, GL_KIND_ARRAY, api);
}

GL_HOOK(cudaError_t, cudaMallocArray,
        (cudaArray_t *array, const struct cudaChannelFormatDesc *desc, size_t width, size_t height,
         unsigned int flags))
{
    GL_REAL_OR_RETURN(real, cudaMallocArray, NO_RUNTIME);
    bool track = gl_enter();
    cudaError_t rc = real(array, desc, width, height, flags);
    after_array(track, rc, array ? (void *)*array : NULL, width * max1(height) * element_bytes(desc),
                GL_API_CUDA_MALLOC_ARRAY);
    gl_leave();
    return rc;
}

GL_HOOK(cudaError_t, cudaMalloc3DArray,
        (cudaArray_t *array, const struct cudaChannelFormatDesc *desc, struct cudaExtent extent,
         unsigned int flags))
{
    GL_REAL_OR_RETURN(real, cudaMalloc3DArray, NO_RUNTIME);
    bool track = gl_enter();
    cudaError_t rc = real(array, desc, extent, flags);
    after_array(track, rc, array ? (void *)*array : NULL,
                extent.width * max1(extent.height) * max1(extent.depth) * element_bytes(desc),
                GL_API_CUDA_MALLOC_3D_ARRAY);
    gl_leave();
    return rc;
}

GL_HOOK(cudaError_t, cudaMallocMipmappedArray,
        (cudaMipmappedArray_t *mipmappedArray, const struct cudaChannelFormatDesc *desc,
         struct cudaExtent extent, unsigned int numLevels, unsigned int flags))
{
    GL_REAL_OR_RETURN(real, cudaMallocMipmappedArray, NO_RUNTIME);
    bool track = gl_enter();
    cudaError_t rc = real(mipmappedArray, desc, extent, numLevels, flags);
    size_t bytes = 0, w = extent.width, h = extent.height, d = extent.depth;
    for (unsigned i = 0; i < numLevels && i < 64; i++) {
        bytes += max1(w) * max1(h) * max1(d) * element_bytes(desc);
        w /= 2, h /= 2, d /= 2;
    }
    after_array(track, rc, mipmappedArray ? (void *)*mipmappedArray : NULL, bytes,
                GL_API_CUDA_MALLOC_MIPMAPPED_ARRAY);
    gl_leave();
    return rc;
}

#define FREE_ARRAY_BODY(name, handle)                                            \
    GL_REAL_OR_RETURN(real, name, NO_RUNTIME);                                   \
    bool track = gl_enter() && (handle) != NULL;                                 \
    struct gl_record *r = track ? gl_free_begin(GL_SPACE_ARRAY, (uintptr_t)(handle)) : NULL; \
    cudaError_t rc = real(handle);                                               \
    if (track)                                                                   \
        gl_free_end(r, rc == cudaSuccess, r ? 0 : gl_runtime_where().device);    \
    gl_leave();                                                                  \
    return rc

GL_HOOK(cudaError_t, cudaFreeArray, (cudaArray_t array)) { FREE_ARRAY_BODY(cudaFreeArray, array); }
GL_HOOK(cudaError_t, cudaFreeMipmappedArray, (cudaMipmappedArray_t mipmappedArray))
{
    FREE_ARRAY_BODY(cudaFreeMipmappedArray, mipmappedArray);
}
