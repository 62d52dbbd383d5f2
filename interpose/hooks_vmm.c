/* Virtual memory management hooks (see vmm.h for what is counted). */
#include <cuda.h>

#include "hook.h"
#include "record.h"
#include "snapshot_format.h"
#include "vmm.h"

#define NO_DRIVER CUDA_ERROR_NOT_INITIALIZED

GL_HOOK(CUresult, cuMemCreate,
        (CUmemGenericAllocationHandle *handle, size_t size, const CUmemAllocationProp *prop,
         unsigned long long flags))
{
    GL_REAL_OR_RETURN(real, cuMemCreate, NO_DRIVER);
    bool track = gl_enter();
    CUresult rc = real(handle, size, prop, flags);
    if (track && rc == CUDA_SUCCESS && handle != NULL) {
        struct gl_where w = gl_driver_where(0);
        if (prop != NULL && prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE)
            w.device = prop->location.id;
        gl_vmm_created(*handle, w.device);
        gl_record_alloc(w, *handle, size, 0, GL_KIND_VIRTUAL, GL_API_CU_MEM_CREATE, GL_SPACE_VMM);
    } else if (track && rc == CUDA_ERROR_OUT_OF_MEMORY) {
        gl_record_failed(prop != NULL && prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE
                             ? prop->location.id
                             : gl_driver_where(0).device,
                         size, 0, GL_KIND_VIRTUAL, GL_API_CU_MEM_CREATE);
    }
    gl_leave();
    return rc;
}

GL_HOOK(CUresult, cuMemRelease, (CUmemGenericAllocationHandle handle))
{
    GL_REAL_OR_RETURN(real, cuMemRelease, NO_DRIVER);
    bool track = gl_enter();
    /* The last reference of an unmapped handle: the memory goes with this
     * call, and the handle value can be reused at once, so take the record
     * first.  Mapped or still referenced: it stays live. */
    struct gl_record *r = track && gl_vmm_release_frees(handle) ? gl_free_begin(GL_SPACE_VMM, handle) : NULL;
    CUresult rc = real(handle);
    if (track) {
        if (rc == CUDA_SUCCESS)
            gl_vmm_released(handle);
        if (r != NULL)
            gl_free_end(r, rc == CUDA_SUCCESS, 0);
    }
    gl_leave();
    return rc;
}

GL_HOOK(CUresult, cuMemRetainAllocationHandle, (CUmemGenericAllocationHandle *handle, void *addr))
{
    GL_REAL_OR_RETURN(real, cuMemRetainAllocationHandle, NO_DRIVER);
    bool track = gl_enter();
    CUresult rc = real(handle, addr);
    if (track && rc == CUDA_SUCCESS && handle != NULL)
        gl_vmm_retained(*handle);
    gl_leave();
    return rc;
}

static void handle_gone(uint64_t handle)
{
    struct gl_record *r = gl_free_begin(GL_SPACE_VMM, handle);
    if (r != NULL)
        gl_free_end(r, 1, 0);
}

GL_HOOK(CUresult, cuMemMap,
        (CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
         unsigned long long flags))
{
    GL_REAL_OR_RETURN(real, cuMemMap, NO_DRIVER);
    bool track = gl_enter();
    CUresult rc = real(ptr, size, offset, handle, flags);
    if (track && rc == CUDA_SUCCESS)
        gl_vmm_mapped(ptr, size, handle);
    gl_leave();
    return rc;
}

GL_HOOK(CUresult, cuMemUnmap, (CUdeviceptr ptr, size_t size))
{
    GL_REAL_OR_RETURN(real, cuMemUnmap, NO_DRIVER);
    bool track = gl_enter();
    CUresult rc = real(ptr, size);
    if (track && rc == CUDA_SUCCESS)
        gl_vmm_unmapped(ptr, size, handle_gone);
    gl_leave();
    return rc;
}

GL_HOOK(CUresult, cuMemAddressReserve,
        (CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr, unsigned long long flags))
{
    GL_REAL_OR_RETURN(real, cuMemAddressReserve, NO_DRIVER);
    bool track = gl_enter();
    CUresult rc = real(ptr, size, alignment, addr, flags);
    if (track && rc == CUDA_SUCCESS && ptr != NULL)
        gl_vmm_reserved(*ptr, size);
    gl_leave();
    return rc;
}

GL_HOOK(CUresult, cuMemAddressFree, (CUdeviceptr ptr, size_t size))
{
    GL_REAL_OR_RETURN(real, cuMemAddressFree, NO_DRIVER);
    bool track = gl_enter();
    CUresult rc = real(ptr, size);
    if (track && rc == CUDA_SUCCESS)
        gl_vmm_unreserved(ptr);
    gl_leave();
    return rc;
}
