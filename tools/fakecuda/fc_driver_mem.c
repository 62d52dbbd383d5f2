/* Linear device memory (cuMemAlloc, pitch, managed), pinned / registered host
 * memory, and the cleanup a context's destruction implies. */
#include "fc_internal.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* ---- device memory ----------------------------------------------------- */

/* Reserve a rounded block on the current context's device.  *dptr is only
 * written on success (a failed cuMemAlloc leaves it untouched). */
static CUresult dev_alloc(CUdeviceptr *dptr, size_t req, size_t rsize, int kind)
{
    struct fc_ctx *c;
    CUresult r = fc_cur_ctx(&c);
    if (r)
        return r;
    if (!dptr || req == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (rsize == 0)
        return CUDA_ERROR_OUT_OF_MEMORY;
    fc_lock();
    if (kind == FC_K_DEVICE)
        fc_other_later_charge(&fc_devs[c->dev]);
    struct fc_seg *s = fc_heap_alloc(&fc_devs[c->dev], rsize);
    if (s) {
        s->kind = kind;
        s->req = req;
        s->ctx = c;
        *dptr = (CUdeviceptr)s->start;
    }
    fc_unlock();
    return s ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    return dev_alloc(dptr, bytesize, fc_round(bytesize), FC_K_DEVICE);
}

CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes, size_t Height,
                            unsigned int ElementSizeBytes)
{
    if (!pPitch || WidthInBytes == 0 || Height == 0 ||
        (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16))
        return CUDA_ERROR_INVALID_VALUE;
    size_t pitch = (WidthInBytes + FC_ALIGN - 1) & ~(FC_ALIGN - 1);
    if (Height > SIZE_MAX / pitch)
        return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult r = dev_alloc(dptr, pitch * Height, fc_round(pitch * Height), FC_K_PITCH);
    if (r == CUDA_SUCCESS)
        *pPitch = pitch;
    return r;
}

CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
    if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST)
        return CUDA_ERROR_INVALID_VALUE;
    return dev_alloc(dptr, bytesize, fc_round(bytesize), FC_K_MANAGED);
}

CUresult cuMemFree_v2(CUdeviceptr dptr)
{
    CUresult r = fc_release_ctx_check();
    if (r)
        return r;
    if (dptr == 0)
        return CUDA_SUCCESS;
    /* Like a real cuMemFree waiting for the device to go idle: the caller
     * sits inside the call, holding no lock of the driver's -- or, with
     * FAKECUDA_FREE_DELAY_LOCKED, holding the driver's one lock, as a real
     * driver may hold its own while it synchronizes. */
    if (fc_free_delay_locked)
        fc_lock();
    if (fc_free_delay_ms) {
        struct timespec delay = {(time_t)(fc_free_delay_ms / 1000), (long)(fc_free_delay_ms % 1000) * 1000000L};
        while (nanosleep(&delay, &delay) != 0)
            ;
    }
    if (!fc_free_delay_locked)
        fc_lock();
    struct fc_dev *d;
    struct fc_seg *s = fc_heap_find((uintptr_t)dptr, 1, &d);
    r = CUDA_ERROR_INVALID_VALUE;
    if (s && s->kind == FC_K_POOL && !s->pool_free) {
        fc_pool_block_free(s); /* allowed: cuMemFree of a cuMemAllocAsync pointer */
        r = CUDA_SUCCESS;
    } else if (s && s->kind == FC_K_GRAPH && s->graph_live) {
        fc_graph_free_alloc(s); /* allowed for a graph allocation, at once */
        r = CUDA_SUCCESS;
    } else if (s && (s->kind == FC_K_DEVICE || s->kind == FC_K_PITCH || s->kind == FC_K_MANAGED ||
                     s->kind == FC_K_EXTERNAL || /* a buffer mapped from external memory: unmapped */
                     (s->kind == FC_K_IPC && s->ipc_pool))) { /* an imported pool pointer: unmapped */
        fc_heap_free(d, s);
        r = CUDA_SUCCESS;
    }
    fc_unlock();
    return r;
}

CUresult cuMemGetInfo_v2(size_t *free, size_t *total)
{
    struct fc_ctx *c;
    CUresult r = fc_cur_ctx(&c);
    if (r)
        return r;
    if (!free || !total)
        return CUDA_ERROR_INVALID_VALUE;
    if (fc_meminfo_delay_ms && __atomic_add_fetch(&fc_meminfo_calls, 1, __ATOMIC_RELAXED) > fc_meminfo_delay_skip) {
        struct timespec d = {(time_t)(fc_meminfo_delay_ms / 1000), (long)(fc_meminfo_delay_ms % 1000) * 1000000L};
        while (nanosleep(&d, &d) != 0)
            ;
    }
    fc_lock();
    *total = fc_devs[c->dev].total;
    *free = fc_devs[c->dev].total - fc_devs[c->dev].used;
    fc_unlock();
    return CUDA_SUCCESS;
}

CUresult cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)
{
    struct fc_ctx *c;
    CUresult r = fc_cur_ctx(&c);
    if (r)
        return r;
    uintptr_t base = 0;
    size_t size = 0;
    fc_lock();
    struct fc_seg *s = fc_heap_find((uintptr_t)dptr, 0, NULL);
    uintptr_t rs, ms;
    size_t rz, mz;
    int dev, rw;
    if (s && s->kind != FC_K_ARRAY && !(s->kind == FC_K_POOL && s->pool_free) &&
        !(s->kind == FC_K_GRAPH && !s->graph_live)) {
        base = s->start;
        size = s->req;
        if ((uintptr_t)dptr - base >= size)
            base = 0; /* in the rounding slack: not part of the allocation */
    } else if (fc_vmm_lookup((uintptr_t)dptr, &rs, &rz, &ms, &mz, &dev, &rw) && mz) {
        base = ms;
        size = mz;
    } else {
        /* Pinned or registered host memory is device memory too under
         * unified addressing: numba sizes mapped arrays this way. */
        struct fc_ctx *hc;
        int hr;
        if (!fc_host_lookup((uintptr_t)dptr, &base, &size, &hc, &hr))
            base = 0;
    }
    fc_unlock();
    if (!base)
        return CUDA_ERROR_NOT_FOUND;
    if (pbase)
        *pbase = (CUdeviceptr)base;
    if (psize)
        *psize = size;
    return CUDA_SUCCESS;
}

/* ---- host memory -------------------------------------------------------- */

struct fc_host {
    uintptr_t start;
    size_t size;
    struct fc_ctx *ctx;
    int registered; /* cuMemHostRegister'ed user memory, not ours to free */
    unsigned flags;
    struct fc_host *next;
};
static struct fc_host *hosts; /* under fc_lock */

static struct fc_host *host_find(uintptr_t p, int exact)
{
    for (struct fc_host *h = hosts; h; h = h->next)
        if (exact ? h->start == p : (p >= h->start && p - h->start < h->size))
            return h;
    return NULL;
}

static int host_overlaps(uintptr_t p, size_t n)
{
    for (struct fc_host *h = hosts; h; h = h->next)
        if (p < h->start + h->size && h->start < p + n)
            return 1;
    return 0;
}

static void host_unlink(struct fc_host *h)
{
    for (struct fc_host **pp = &hosts; *pp; pp = &(*pp)->next)
        if (*pp == h) {
            *pp = h->next;
            return;
        }
}

int fc_host_lookup(uintptr_t p, uintptr_t *start, size_t *size, struct fc_ctx **ctx,
                   int *registered)
{
    struct fc_host *h = host_find(p, 0);
    if (!h)
        return 0;
    *start = h->start;
    *size = h->size;
    *ctx = h->ctx;
    *registered = h->registered;
    return 1;
}

/* Pinned memory is ordinary page-aligned host memory; it does not count
 * against the device. */
CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
    struct fc_ctx *c;
    CUresult r = fc_cur_ctx(&c);
    if (r)
        return r;
    if (!pp || bytesize == 0 ||
        (Flags & ~(unsigned)(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP |
                             CU_MEMHOSTALLOC_WRITECOMBINED)))
        return CUDA_ERROR_INVALID_VALUE;
    struct fc_host *h = calloc(1, sizeof *h);
    if (!h)
        return CUDA_ERROR_OUT_OF_MEMORY;
    void *p = mmap(NULL, bytesize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        free(h);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    h->start = (uintptr_t)p;
    h->size = bytesize;
    h->ctx = c;
    h->flags = Flags;
    fc_lock();
    h->next = hosts;
    hosts = h;
    fc_unlock();
    *pp = p;
    return CUDA_SUCCESS;
}

CUresult cuMemAllocHost_v2(void **pp, size_t bytesize) { return cuMemHostAlloc(pp, bytesize, 0); }

CUresult cuMemFreeHost(void *p)
{
    CUresult r = fc_release_ctx_check();
    if (r)
        return r;
    fc_lock();
    struct fc_host *h = p ? host_find((uintptr_t)p, 1) : NULL;
    if (h && !h->registered)
        host_unlink(h);
    else
        h = NULL;
    fc_unlock();
    if (!h)
        return CUDA_ERROR_INVALID_VALUE;
    munmap((void *)h->start, h->size);
    free(h);
    return CUDA_SUCCESS;
}

CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags)
{
    struct fc_ctx *c;
    CUresult r = fc_cur_ctx(&c);
    if (r)
        return r;
    if (!p || bytesize == 0 ||
        (Flags & ~(unsigned)(CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP |
                             CU_MEMHOSTREGISTER_IOMEMORY | CU_MEMHOSTREGISTER_READ_ONLY)))
        return CUDA_ERROR_INVALID_VALUE;
    struct fc_host *h = calloc(1, sizeof *h);
    if (!h)
        return CUDA_ERROR_OUT_OF_MEMORY;
    h->start = (uintptr_t)p;
    h->size = bytesize;
    h->ctx = c;
    h->registered = 1;
    h->flags = Flags;
    fc_lock();
    int dup = host_overlaps(h->start, bytesize);
    if (!dup) {
        h->next = hosts;
        hosts = h;
    }
    fc_unlock();
    if (dup) {
        free(h);
        return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
    }
    return CUDA_SUCCESS;
}

CUresult cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags)
{
    return cuMemHostRegister_v2(p, bytesize, Flags);
}

CUresult cuMemHostUnregister(void *p)
{
    CUresult r = fc_release_ctx_check();
    if (r)
        return r;
    fc_lock();
    struct fc_host *h = p ? host_find((uintptr_t)p, 1) : NULL;
    if (h && h->registered)
        host_unlink(h);
    else
        h = NULL;
    fc_unlock();
    if (!h)
        return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
    free(h);
    return CUDA_SUCCESS;
}

CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p, unsigned int Flags)
{
    struct fc_ctx *c;
    CUresult r = fc_cur_ctx(&c);
    if (r)
        return r;
    if (!pdptr || Flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    fc_lock();
    int ok = host_find((uintptr_t)p, 0) != NULL;
    fc_unlock();
    if (!ok)
        return CUDA_ERROR_INVALID_VALUE;
    *pdptr = (CUdeviceptr)(uintptr_t)p; /* unified addressing: same address */
    return CUDA_SUCCESS;
}

CUresult cuMemHostGetFlags(unsigned int *pFlags, void *p)
{
    struct fc_ctx *c;
    CUresult r = fc_cur_ctx(&c);
    if (r)
        return r;
    if (!pFlags)
        return CUDA_ERROR_INVALID_VALUE;
    fc_lock();
    struct fc_host *h = host_find((uintptr_t)p, 0);
    if (h && !h->registered)
        *pFlags = h->flags;
    fc_unlock();
    return h && !h->registered ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* ---- context teardown ----------------------------------------------------- */

/* Everything allocated in context c goes: device/pitch/managed blocks, arrays,
 * pinned host memory and host registrations; live graph allocations die,
 * while their addresses stay with their nodes.  Live pool blocks stay, and
 * what the device's pools hold unused is released.  Lock held. */
void fc_ctx_release_memory(struct fc_ctx *c)
{
    struct fc_dev *d = &fc_devs[c->dev];
    fc_array_release_ctx(c);
    fc_graph_release_ctx(c);
    fc_extmem_release_ctx(c);
    fc_module_release_ctx(c);
again:
    for (struct fc_seg *s = d->segs; s; s = s->next) {
        /* Stream-ordered allocations belong to their pool, not to the
         * context (CUDA documents they outlive cuCtxDestroy and
         * cudaDeviceReset): they stay until freed or their pool goes; so do
         * pointers imported from another process's pool. */
        if (!s->used || s->ctx != c || s->kind == FC_K_POOL || (s->kind == FC_K_IPC && s->ipc_pool) ||
            s->kind == FC_K_MODULE /* a library's copy (fc_driver_module.c) */)
            continue;
        if (s->kind != FC_K_ARRAY && s->kind != FC_K_GRAPH) {
            fc_heap_free(d, s);
            goto again;
        }
    }
    fc_pool_empty_device(c->dev);
    for (struct fc_host **pp = &hosts; *pp;) {
        struct fc_host *h = *pp;
        if (h->ctx != c) {
            pp = &h->next;
            continue;
        }
        *pp = h->next;
        if (!h->registered)
            munmap((void *)h->start, h->size);
        free(h);
    }
}
