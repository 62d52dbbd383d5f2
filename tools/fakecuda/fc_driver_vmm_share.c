/* Sharing VMM physical memory between processes:
 * cuMemExportToShareableHandle / cuMemImportFromShareableHandle with
 * CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR (what NCCL's cuMem buffers and
 * PyTorch's expandable segments use).
 *
 * A handle's physical memory is a memfd (fc_driver_vmm.c), so the shareable
 * handle is simply a new descriptor of it: passed to another process
 * (SCM_RIGHTS, or inherited), imported and mapped there, it is the same
 * memory, and writes on either side are seen on the other -- unlike the
 * contents of fakecuda's IPC handles.  The memory lives while any process
 * holds a handle, a mapping or an exported descriptor of it, like on a GPU.
 *
 * As in CUDA the import call carries no size and no properties; the importer
 * asks cuMemGetAllocationPropertiesFromHandle and the granularity.  fakecuda
 * learns them from a tag stored past the allocation's end in the memfd
 * (written by cuMemCreate for exportable handles), which also tells a
 * descriptor of an exportable handle from any other file. */
#include "fc_internal.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TAG_MAGIC "FCVMMSH"

struct share_tag {
    char magic[8];
    int32_t dev;
    uint32_t handle_types;
    uint64_t size;
};

int fc_vmm_write_tag(int fd, size_t size, const CUmemAllocationProp *prop)
{
    struct share_tag t;
    memset(&t, 0, sizeof t);
    memcpy(t.magic, TAG_MAGIC, sizeof t.magic);
    t.dev = prop->location.id;
    t.handle_types = (uint32_t)prop->requestedHandleTypes;
    t.size = size;
    return pwrite(fd, &t, sizeof t, (off_t)size) == (ssize_t)sizeof t ? 0 : -1;
}

CUresult cuMemExportToShareableHandle(void *shareableHandle, CUmemGenericAllocationHandle handle,
                                      CUmemAllocationHandleType handleType, unsigned long long flags)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!shareableHandle || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (handleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
        return CUDA_ERROR_NOT_SUPPORTED;
    fc_lock();
    /* A handle not created with this type in requestedHandleTypes cannot be
     * exported (nor can an unknown or released one). */
    int fd = fc_vmm_shareable_fd(handle);
    int dup_fd = fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 0);
    fc_unlock();
    if (fd < 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (dup_fd < 0)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *(int *)shareableHandle = dup_fd;
    return CUDA_SUCCESS;
}

/* The descriptor stays the caller's: the handle holds its own. */
CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle, void *osHandle,
                                        CUmemAllocationHandleType shHandleType)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!handle)
        return CUDA_ERROR_INVALID_VALUE;
    if (shHandleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
        return CUDA_ERROR_NOT_SUPPORTED;
    int fd = (int)(intptr_t)osHandle;
    struct stat st;
    struct share_tag t;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size <= FC_VMM_TAG_SPACE)
        return CUDA_ERROR_INVALID_VALUE;
    size_t size = (size_t)st.st_size - FC_VMM_TAG_SPACE;
    if (pread(fd, &t, sizeof t, (off_t)size) != (ssize_t)sizeof t || memcmp(t.magic, TAG_MAGIC, sizeof t.magic) != 0 ||
        t.size != size || !(t.handle_types & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))
        return CUDA_ERROR_INVALID_VALUE;
    /* Device numbers are the exporter's; one this process lacks is device 0
     * (as for imported pools). */
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = fc_dev_get(t.dev) ? t.dev : 0;
    prop.requestedHandleTypes = (CUmemAllocationHandleType)t.handle_types;
    int own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (own < 0)
        return CUDA_ERROR_OUT_OF_MEMORY;
    CUmemGenericAllocationHandle h = fc_vmm_adopt(own, size, &prop);
    if (h == 0) {
        close(own);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *handle = h;
    return CUDA_SUCCESS;
}
