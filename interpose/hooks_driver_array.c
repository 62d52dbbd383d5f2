/* Driver API hooks for CUDA arrays (see hooks_runtime_array.c for sizes). */
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>

#include "hook.h"
#include "record.h"
#include "snapshot_format.h"

#define NO_DRIVER CUDA_ERROR_NOT_INITIALIZED

static size_t format_bytes(CUarray_format f)
{
    switch (f) {
    case CU_AD_FORMAT_UNSIGNED_INT8:
    case CU_AD_FORMAT_SIGNED_INT8:
        return 1;
    case CU_AD_FORMAT_UNSIGNED_INT16:
    case CU_AD_FORMAT_SIGNED_INT16:
    case CU_AD_FORMAT_HALF:
        return 2;
    default: /* 32-bit formats; exotic ones are counted as 4 bytes */
        return 4;
    }
}

static size_t max1(size_t v) { return v ? v : 1; }

static size_t bytes_3d(const CUDA_ARRAY3D_DESCRIPTOR *d, unsigned levels)
{
    if (d == NULL)
        return 0;
    size_t bytes = 0, w = d->Width, h = d->Height, z = d->Depth;
    for (unsigned i = 0; i < levels && i < 64; i++) {
        bytes += max1(w) * max1(h) * max1(z) * d->NumChannels * format_bytes(d->Format);
        w /= 2, h /= 2, z /= 2;
    }
    return bytes;
}

static void after_array(bool track, CUresult rc, void *handle, size_t bytes, uint16_t api)
{
    if (!track)
        return;
    if (rc == CUDA_SUCCESS && handle != NULL)
        gl_record_alloc(gl_driver_where(0), (uintptr_t)handle, bytes, 0, GL_KIND_ARRAY, api,
                        GL_SPACE_ARRAY);
    else if (rc == CUDA_ERROR_OUT_OF_MEMORY)
        gl_record_failed(gl_driver_where(0).device, bytes, 0, GL_KIND_ARRAY, api);
}

GL_HOOK(CUresult, cuArrayCreate_v2, (CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *pAllocateArray))
{
    GL_REAL_OR_RETURN(real, cuArrayCreate_v2, NO_DRIVER);
    bool track = gl_enter();
    CUresult rc = real(pHandle, pAllocateArray);
    size_t bytes = pAllocateArray ? pAllocateArray->Width * max1(pAllocateArray->Height) *
                                        pAllocateArray->NumChannels * format_bytes(pAllocateArray->Format)
                                  : 0;
    after_array(track, rc, pHandle ? (void *)*pHandle : NULL, bytes, GL_API_CU_ARRAY_CREATE);
    gl_leave();
    return rc;
}

GL_HOOK(CUresult, cuArray3DCreate_v2, (CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *pAllocateArray))
{
    GL_REAL_OR_RETURN(real, cuArray3DCreate_v2, NO_DRIVER);
    bool track = gl_enter();
    CUresult rc = real(pHandle, pAllocateArray);
    after_array(track, rc, pHandle ? (void *)*pHandle : NULL, bytes_3d(pAllocateArray, 1),
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
    after_array(track, rc, pHandle ? (void *)*pHandle : NULL, bytes_3d(pMipmappedArrayDesc, numMipmapLevels),
                GL_API_CU_MIPMAPPED_ARRAY_CREATE);
    gl_leave();
    return rc;
}

#define FREE_ARRAY_BODY(name, handle)                                            \
    GL_REAL_OR_RETURN(real, name, NO_DRIVER);                                    \
    bool track = gl_enter() && (handle) != NULL;                                 \
    struct gl_record *r = track ? gl_free_begin(GL_SPACE_ARRAY, (uintptr_t)(handle)) : NULL; \
    CUresult rc = real(handle);                                                  \
    if (track)                                                                   \
        gl_free_end(r, rc == CUDA_SUCCESS, r ? 0 : gl_driver_where(0).device);   \
    gl_leave();                                                                  \
    return rc

GL_HOOK(CUresult, cuArrayDestroy, (CUarray hArray)) { FREE_ARRAY_BODY(cuArrayDestroy, hArray); }
GL_HOOK(CUresult, cuMipmappedArrayDestroy, (CUmipmappedArray hMipmappedArray))
{
    FREE_ARRAY_BODY(cuMipmappedArrayDestroy, hMipmappedArray);
}
