/* Virtual memory management hooks (see vmm.h for what is counted, and
 * vmm_import.h for handles imported from another process). */
#include <cuda.h>
#include <errno.h>

#include "control/torch_view.h"
#include "cuda/before_attach.h"
#include "cuda/calls.h"
#include "cuda/vmm.h"
#include "cuda/vmm_import.h"
#include "cuda/where.h"
#include "hooks/hook.h"
#include "resolve/resolve.h"
#include "snapshot_format.h"

#define NO_DRIVER CUDA_ERROR_NOT_INITIALIZED

GL_DEFINE_REAL(CUresult, cuMemGetAllocationPropertiesFromHandle, (CUmemAllocationProp *, CUmemGenericAllocationHandle))

/* Where a cuMemCreate's memory is: a device (its ordinal), or the host (-1)
 * for the host and host-NUMA locations (CUDA 12.2+): that is the machine's
 * RAM, pinned, so it is counted as host-pinned memory on the host, as
 * cuMemHostAlloc's is, not on the current context's GPU.  Any other type
 * (none, or a future one): the current context's device, as before. */
static void created_where(const CUmemAllocationProp *prop, int32_t *device, uint16_t *kind)
{
    *kind = GL_KIND_VIRTUAL;
    if (prop == NULL)
        return;
    switch (prop->location.type) {
    case CU_MEM_LOCATION_TYPE_DEVICE:
        *device = prop->location.id;
        break;
    case CU_MEM_LOCATION_TYPE_HOST:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT:
        *device = -1;
        *kind = GL_KIND_HOST_PINNED;
        break;
    default:
        break;
    }
}

GL_HOOK(CUresult, cuMemCreate,
        (CUmemGenericAllocationHandle *handle, size_t size, const CUmemAllocationProp *prop,
         unsigned long long flags))
{
    GL_REAL_OR_RETURN(real, cuMemCreate, NO_DRIVER);
    bool track = gl_enter();
    CUresult rc = real(handle, size, prop, flags);
    if (track && ((rc == CUDA_SUCCESS && handle != NULL) || rc == CUDA_ERROR_OUT_OF_MEMORY)) {
        struct gl_where w = gl_where_driver(0);
        uint16_t kind;
        created_where(prop, &w.device, &kind);
        if (rc == CUDA_SUCCESS) {
            gl_vmm_created(*handle, w.device);
            gl_call_alloc(w, *handle, size, 0, kind, GL_API_CU_MEM_CREATE, GL_SPACE_VMM);
            /* PyTorch's expandable segments grow by cuMemCreate and never
             * call cudaMalloc: its stacks are turned on from here too. */
            gl_torch_note_alloc();
        } else {
            gl_hook_out_of_memory(w.device, size, 0, kind, GL_API_CU_MEM_CREATE);
        }
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
     * first.  Mapped or still referenced: it stays live.  An imported
     * handle's record goes with its last reference, mapped or not (its
     * mappings have records of their own). */
    enum gl_vmm_release e = track ? gl_vmm_release_effect(handle) : GL_VMM_RELEASE_KEEPS;
    struct gl_live *r = e == GL_VMM_RELEASE_FREES         ? gl_call_free_begin(GL_SPACE_VMM, handle)
                          : e == GL_VMM_RELEASE_ENDS_IMPORT ? gl_call_free_begin(GL_SPACE_VMM_IMPORT, handle)
                                                            : NULL;
    CUresult rc = real(handle);
    if (track) {
        if (rc == CUDA_SUCCESS)
            gl_vmm_released(handle);
        if (r != NULL)
            gl_call_free_end(r, rc == CUDA_SUCCESS, 0);
    }
    gl_leave();
    return rc;
}

/* A multicast object is a generic allocation handle like cuMemCreate's:
 * released with cuMemRelease, mappable with cuMemMap, so it lives by the
 * same references and mappings (vmm.h).  Its record (kind multicast, its
 * per-device size, the creating stack) makes a never-released object a leak
 * and its release no unknown free; it is no part of the device's usage, as
 * the memory bound to it is its cuMemCreate handles' and counted there.
 * Binding and unbinding are not followed: cuda.h does not say that a binding
 * keeps memory alive, so each handle's record follows its own references. */
GL_HOOK(CUresult, cuMulticastCreate, (CUmemGenericAllocationHandle *mcHandle, const CUmulticastObjectProp *prop))
{
    GL_REAL_OR_RETURN(real, cuMulticastCreate, NO_DRIVER);
    bool track = gl_enter();
    CUresult rc = real(mcHandle, prop);
    if (track && rc == CUDA_SUCCESS && mcHandle != NULL && prop != NULL) {
        struct gl_where w = gl_where_driver(0);
        gl_vmm_created(*mcHandle, w.device);
        gl_call_alloc(w, *mcHandle, prop->size, 0, GL_KIND_MULTICAST, GL_API_CU_MULTICAST_CREATE, GL_SPACE_VMM);
    }
    gl_leave();
    return rc;
}

GL_HOOK(CUresult, cuMemRetainAllocationHandle, (CUmemGenericAllocationHandle *handle, void *addr))
{
    GL_CALL_THEN_BODY(cuMemRetainAllocationHandle, NO_DRIVER, real(handle, addr),
                      if (track && rc == CUDA_SUCCESS && handle != NULL)
                          gl_vmm_retained(*handle));
}

/* Another process's memory (vmm_import.h): the handle is recorded as kind
 * ipc with no size (the exporter knows it, this process is not told) until
 * its last reference is released; each mapping of it is recorded too.  Its
 * device is asked now, once, for those records. */
GL_HOOK(CUresult, cuMemImportFromShareableHandle,
        (CUmemGenericAllocationHandle *handle, void *osHandle, CUmemAllocationHandleType shHandleType))
{
    GL_REAL_OR_RETURN(real, cuMemImportFromShareableHandle, NO_DRIVER);
    bool track = gl_enter();
    CUresult rc = real(handle, osHandle, shHandleType);
    if (track && rc == CUDA_SUCCESS && handle != NULL) {
        int saved = errno;
        CUmemAllocationProp prop = {0};
        cuMemGetAllocationPropertiesFromHandle_fn props = REAL_cuMemGetAllocationPropertiesFromHandle();
        int32_t device = -1;
        if (props != NULL && props(&prop, *handle) == CUDA_SUCCESS &&
            prop.location.type == CU_MEM_LOCATION_TYPE_DEVICE)
            device = prop.location.id;
        if (gl_vmm_imported(*handle, device)) {
            struct gl_where w = gl_where_driver(0);
            if (device >= 0)
                w.device = device;
            gl_call_alloc(w, *handle, 0, 0, GL_KIND_IPC, GL_API_CU_MEM_IMPORT_FROM_SHAREABLE_HANDLE,
                          GL_SPACE_VMM_IMPORT);
        }
        errno = saved;
    }
    gl_leave();
    return rc;
}

static void handle_gone(uint64_t handle)
{
    struct gl_live *r = gl_call_free_begin(GL_SPACE_VMM, handle);
    if (r != NULL)
        gl_call_free_end(r, 1, 0);
}

GL_HOOK(CUresult, cuMemMap,
        (CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
         unsigned long long flags))
{
    GL_REAL_OR_RETURN(real, cuMemMap, NO_DRIVER);
    bool track = gl_enter();
    CUresult rc = real(ptr, size, offset, handle, flags);
    int32_t device;
    if (track && rc == CUDA_SUCCESS && gl_vmm_mapped(ptr, size, handle, &device))
        gl_vmm_import_mapped(ptr, size, device);
    gl_leave();
    return rc;
}

GL_HOOK(CUresult, cuMemUnmap, (CUdeviceptr ptr, size_t size))
{
    GL_REAL_OR_RETURN(real, cuMemUnmap, NO_DRIVER);
    bool track = gl_enter();
    struct gl_vmm_unmap u;
    if (track)
        gl_vmm_unmap_begin(&u, ptr, size);
    CUresult rc = real(ptr, size);
    if (track) {
        gl_vmm_unmap_end(&u, rc == CUDA_SUCCESS);
        if (rc == CUDA_SUCCESS) {
            uint64_t known = gl_vmm_unmapped(ptr, size, handle_gone);
            /* Mapped before an attach: its memory leaves the device's use
             * now (its handle's release follows, or came first), counted
             * by the bytes unmapped, the one size the VMM API gives. */
            if (known < size && gl_before_attach_counting())
                gl_before_attach_freed(gl_where_driver(ptr).device, ptr, size - known);
        }
    }
    gl_leave();
    return rc;
}

GL_HOOK(CUresult, cuMemAddressReserve,
        (CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr, unsigned long long flags))
{
    GL_CALL_THEN_BODY(cuMemAddressReserve, NO_DRIVER, real(ptr, size, alignment, addr, flags),
                      if (track && rc == CUDA_SUCCESS && ptr != NULL)
                          gl_vmm_reserved(*ptr, size));
}

GL_HOOK(CUresult, cuMemAddressFree, (CUdeviceptr ptr, size_t size))
{
    GL_CALL_THEN_BODY(cuMemAddressFree, NO_DRIVER, real(ptr, size),
                      if (track && rc == CUDA_SUCCESS)
                          gl_vmm_unreserved(ptr));
}
