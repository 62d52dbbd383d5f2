/* External memory: memory another API allocated (Vulkan, Direct3D, a
 * DMA-BUF exporter) imported into CUDA, then mapped as buffers
 * (cuExternalMemoryGetMappedBuffer, freed with cuMemFree) or mipmapped
 * arrays (cuExternalMemoryGetMappedMipmappedArray, freed with
 * cuMipmappedArrayDestroy).
 *
 * There is no Vulkan here, so what a program imports is any file descriptor
 * of a file at least as long as the size it declares (a memfd stands in for
 * vkGetMemoryFdKHR's export); OPAQUE_FD and DMABUF_FD are the handle types a
 * Linux driver takes, the Windows and NvSciBuf ones are refused.  On success
 * the descriptor belongs to the driver, which closes it when the object is
 * destroyed or its context goes, as documented.
 *
 * None of it is charged to a device: the memory is the other API's.  Mapped
 * buffers get their own addresses in the device range, usable like any
 * allocation, but they do NOT share contents with the descriptor.  Destroying
 * the object leaves its buffers and arrays mapped until they are freed
 * themselves, as CUDA requires. */
#include "fc_internal.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

struct fc_extmem {
    int alive;
    int fd;                     /* owned while alive */
    struct fc_ctx *ctx;
    unsigned long long size;
    struct fc_extmem *next_all; /* every object ever made, for handle checks */
};
static struct fc_extmem *all; /* under fc_lock; never freed, like contexts */

/* A live object of the current context (lock held). */
static struct fc_extmem *find(CUexternalMemory h, struct fc_ctx *c)
{
    for (struct fc_extmem *e = all; e; e = e->next_all)
        if ((CUexternalMemory)e == h)
            return e->alive && e->ctx == c ? e : NULL;
    return NULL;
}

static void end(struct fc_extmem *e)
{
    e->alive = 0;
    close(e->fd);
    e->fd = -1;
}

CUresult cuImportExternalMemory(CUexternalMemory *extMem_out, const CUDA_EXTERNAL_MEMORY_HANDLE_DESC *memHandleDesc)
{
    struct fc_ctx *c;
    CUresult r = fc_cur_ctx(&c);
    if (r)
        return r;
    const CUDA_EXTERNAL_MEMORY_HANDLE_DESC *d = memHandleDesc;
    if (!extMem_out || !d || d->size == 0 || (d->flags & ~(unsigned)CUDA_EXTERNAL_MEMORY_DEDICATED))
        return CUDA_ERROR_INVALID_VALUE;
    if (d->type != CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD && d->type != CU_EXTERNAL_MEMORY_HANDLE_TYPE_DMABUF_FD)
        return CUDA_ERROR_NOT_SUPPORTED;
    struct stat st;
    if (d->handle.fd < 0 || fstat(d->handle.fd, &st) != 0 || st.st_size < 0 ||
        (unsigned long long)st.st_size < d->size)
        return CUDA_ERROR_INVALID_VALUE;
    struct fc_extmem *e = calloc(1, sizeof *e);
    if (!e)
        return CUDA_ERROR_OUT_OF_MEMORY;
    e->alive = 1;
    e->fd = d->handle.fd;
    e->ctx = c;
    e->size = d->size;
    fc_lock();
    e->next_all = all;
    all = e;
    fc_unlock();
    *extMem_out = (CUexternalMemory)e;
    return CUDA_SUCCESS;
}

CUresult cuDestroyExternalMemory(CUexternalMemory extMem)
{
    struct fc_ctx *c;
    CUresult r = fc_cur_ctx(&c);
    if (r)
        return r;
    fc_lock();
    struct fc_extmem *e = find(extMem, c);
    if (e)
        end(e);
    fc_unlock();
    return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* Does [offset, offset+size) lie in the object? */
static int fits(const struct fc_extmem *e, unsigned long long offset, unsigned long long size)
{
    return offset <= e->size && size <= e->size - offset;
}

CUresult cuExternalMemoryGetMappedBuffer(CUdeviceptr *devPtr, CUexternalMemory extMem,
                                         const CUDA_EXTERNAL_MEMORY_BUFFER_DESC *bufferDesc)
{
    struct fc_ctx *c;
    CUresult r = fc_cur_ctx(&c);
    if (r)
        return r;
    const CUDA_EXTERNAL_MEMORY_BUFFER_DESC *b = bufferDesc;
    if (!devPtr || !b || b->size == 0 || b->flags)
        return CUDA_ERROR_INVALID_VALUE;
    fc_lock();
    struct fc_extmem *e = find(extMem, c);
    struct fc_seg *s = NULL;
    r = !e ? CUDA_ERROR_INVALID_HANDLE : !fits(e, b->offset, b->size) ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
    if (r == CUDA_SUCCESS) {
        s = fc_heap_map(&fc_devs[c->dev], fc_round(b->size));
        if (s) {
            s->kind = FC_K_EXTERNAL;
            s->req = b->size;
            s->ctx = c;
            *devPtr = (CUdeviceptr)s->start;
        } else {
            r = CUDA_ERROR_OUT_OF_MEMORY; /* no address range left */
        }
    }
    fc_unlock();
    return r;
}

CUresult cuExternalMemoryGetMappedMipmappedArray(CUmipmappedArray *mipmap, CUexternalMemory extMem,
                                                 const CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC *mipmapDesc)
{
    struct fc_ctx *c;
    CUresult r = fc_cur_ctx(&c);
    if (r)
        return r;
    if (!mipmap || !mipmapDesc)
        return CUDA_ERROR_INVALID_VALUE;
    fc_lock();
    struct fc_extmem *e = find(extMem, c);
    unsigned long long room = e && mipmapDesc->offset <= e->size ? e->size - mipmapDesc->offset : 0;
    fc_unlock();
    if (!e)
        return CUDA_ERROR_INVALID_HANDLE;
    /* The object may be destroyed meanwhile (another thread): the array
     * would then outlive it, which CUDA allows of arrays mapped earlier. */
    return fc_array_map(mipmap, &mipmapDesc->arrayDesc, mipmapDesc->numLevels, (size_t)room);
}

void fc_extmem_release_ctx(struct fc_ctx *c)
{
    for (struct fc_extmem *e = all; e; e = e->next_all)
        if (e->alive && e->ctx == c)
            end(e);
}
