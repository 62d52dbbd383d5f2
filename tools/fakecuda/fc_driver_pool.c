/* Stream-ordered allocation: memory pools.
 *
 * A pool owns whole heap blocks (kind FC_K_POOL).  cuMemAllocAsync reuses a
 * block the pool holds or reserves a new one from the device; cuMemFreeAsync
 * hands the block back to the pool, which keeps it reserved (so cuMemGetInfo
 * still counts it) until a synchronisation trims the pool down to its release
 * threshold -- the behaviour that makes real pools look like leaks. */
#include "fc_internal.h"

#include <stdlib.h>

static struct fc_pool *all_pools; /* never freed: stale handles are refused */

int fc_pool_known(struct fc_pool *p)
{
    for (struct fc_pool *x = all_pools; x; x = x->next_all)
        if (x == p)
            return 1;
    return 0;
}

struct fc_pool *fc_pool_new(int dev)
{
    struct fc_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->dev = dev;
    p->id = fc_next_id();
    p->alive = 1;
    p->reuse[0] = p->reuse[1] = p->reuse[2] = 1;
    p->next_all = all_pools;
    all_pools = p;
    return p;
}

void fc_pool_init_device(struct fc_dev *d)
{
    fc_lock();
    d->default_pool = d->cur_pool = fc_pool_new(d->ord);
    if (d->default_pool)
        d->default_pool->is_default = 1;
    fc_unlock();
}

static void unlink_block(struct fc_pool *p, struct fc_seg *s)
{
    for (struct fc_seg **pp = &p->blocks; *pp; pp = &(*pp)->pool_next)
        if (*pp == s) {
            *pp = s->pool_next;
            return;
        }
}

void fc_pool_trim(struct fc_pool *p, uint64_t keep)
{
    struct fc_seg *s = p->blocks;
    while (s && p->reserved > keep) {
        struct fc_seg *next = s->pool_next;
        if (s->pool_free) {
            unlink_block(p, s);
            p->reserved -= s->size;
            fc_heap_free(&fc_devs[p->dev], s);
        }
        s = next;
    }
}

void fc_pool_sync_device(int dev)
{
    for (struct fc_pool *p = all_pools; p; p = p->next_all)
        if (p->dev == dev)
            fc_pool_trim(p, p->alive ? p->threshold : 0);
}

void fc_pool_sync_locking(int dev)
{
    fc_lock();
    fc_pool_sync_device(dev);
    fc_unlock();
}

void fc_pool_empty_device(int dev)
{
    for (struct fc_pool *p = all_pools; p; p = p->next_all)
        if (p->dev == dev)
            fc_pool_trim(p, 0);
}

void fc_pool_block_free(struct fc_seg *s)
{
    struct fc_pool *p = s->pool;
    if (s->ipc_slot) /* the exported allocation is gone, the block stays */
        fc_ipc_forget(s);
    s->pool_free = 1;
    s->ctx = NULL;
    p->used -= s->size;
    if (!p->alive) /* destroyed pool: its memory goes as soon as it is unused */
        fc_pool_trim(p, 0);
}

/* Lock held.  Reuse the tightest held block (within 2x, so a huge block is not
 * pinned by a tiny request), else reserve; on device OOM give back what the
 * pool holds unused and try once more. */
static CUresult pool_alloc(struct fc_pool *p, struct fc_ctx *c, size_t req, CUdeviceptr *dptr)
{
    size_t rsize = fc_round(req);
    if (rsize == 0)
        return CUDA_ERROR_OUT_OF_MEMORY;
    struct fc_seg *best = NULL;
    for (struct fc_seg *s = p->blocks; s; s = s->pool_next)
        if (s->pool_free && s->size >= rsize && s->size / 2 < rsize && (!best || s->size < best->size))
            best = s;
    if (!best) {
        best = fc_heap_alloc(&fc_devs[p->dev], rsize);
        if (!best) {
            fc_pool_trim(p, 0);
            best = fc_heap_alloc(&fc_devs[p->dev], rsize);
        }
        if (!best)
            return CUDA_ERROR_OUT_OF_MEMORY;
        best->kind = FC_K_POOL;
        best->pool = p;
        best->pool_next = p->blocks;
        p->blocks = best;
        p->reserved += best->size;
        if (p->reserved > p->reserved_high)
            p->reserved_high = p->reserved;
    }
    best->pool_free = 0;
    best->ctx = c;
    best->req = req;
    best->id = fc_next_id();
    p->used += best->size;
    if (p->used > p->used_high)
        p->used_high = p->used;
    *dptr = (CUdeviceptr)best->start;
    return CUDA_SUCCESS;
}

/* pt: a _ptsz entry point, where stream 0 is the per-thread default stream
 * (which, unlike the legacy one, can be captured). */
static CUresult alloc_async(CUdeviceptr *dptr, size_t bytesize, struct fc_pool *pool, CUstream st, int pt)
{
    struct fc_ctx *c;
    int dev;
    CUresult r = fc_cur_ctx(&c);
    if (r)
        return r;
    if ((r = fc_stream_dev(st, &dev)))
        return r;
    if (!dptr || bytesize == 0)
        return CUDA_ERROR_INVALID_VALUE;
    fc_lock();
    struct fc_graph *g = fc_capturing(st, pt);
    if (!pool)
        pool = fc_devs[dev].cur_pool;
    if (!fc_pool_known(pool) || !pool->alive || pool->imported) /* imported pools only map */
        r = CUDA_ERROR_INVALID_VALUE;
    else if (g) /* captured: an allocation node, the pool is not touched */
        r = fc_capture_alloc(g, c, pool->dev, bytesize, dptr);
    else
        r = pool_alloc(pool, c, bytesize, dptr);
    fc_unlock();
    return r;
}

CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    return alloc_async(dptr, bytesize, NULL, hStream, 0);
}

CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    return alloc_async(dptr, bytesize, NULL, hStream, 1);
}

static CUresult from_pool(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream st, int pt)
{
    if (!pool)
        return CUDA_ERROR_INVALID_VALUE;
    return alloc_async(dptr, bytesize, (struct fc_pool *)pool, st, pt);
}

CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream)
{
    return from_pool(dptr, bytesize, pool, hStream, 0);
}

CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
                                      CUstream hStream)
{
    return from_pool(dptr, bytesize, pool, hStream, 1);
}

/* Pool blocks go back to their pool; ordinary cuMemAlloc memory may also be
 * freed this way (the real driver allows it) and is released at once, and
 * so is a live graph allocation.  Captured, the free is a free node. */
static CUresult free_async(CUdeviceptr dptr, CUstream st, int pt)
{
    int dev;
    CUresult r = fc_stream_dev(st, &dev);
    if (r)
        return r;
    if (dptr == 0)
        return CUDA_SUCCESS;
    fc_lock();
    struct fc_dev *d;
    struct fc_seg *s = fc_heap_find((uintptr_t)dptr, 1, &d);
    struct fc_graph *g = fc_capturing(st, pt);
    r = CUDA_ERROR_INVALID_VALUE;
    if (g) {
        r = fc_capture_free(g, dptr);
    } else if (s && s->kind == FC_K_GRAPH && s->graph_live) {
        fc_graph_free_alloc(s);
        r = CUDA_SUCCESS;
    } else if (s && s->kind == FC_K_POOL && !s->pool_free) {
        fc_pool_block_free(s);
        r = CUDA_SUCCESS;
    } else if (s && (s->kind == FC_K_DEVICE || s->kind == FC_K_PITCH || s->kind == FC_K_MANAGED ||
                     (s->kind == FC_K_IPC && s->ipc_pool))) {
        fc_heap_free(d, s);
        r = CUDA_SUCCESS;
    }
    fc_unlock();
    return r;
}

CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream) { return free_async(dptr, hStream, 0); }
CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream) { return free_async(dptr, hStream, 1); }

/* ---- pool objects ------------------------------------------------------ */

CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *poolProps)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pool || !poolProps)
        return CUDA_ERROR_INVALID_VALUE;
    /* Pinned pools on a device; since 13.0 managed pools too, on a device
     * or with no preferred location (NONE: the current context's device
     * holds it here).  Host-located pools are not modelled. */
    int managed = poolProps->allocType == CU_MEM_ALLOCATION_TYPE_MANAGED;
    int dev = poolProps->location.id;
    struct fc_ctx *c;
    if (managed && poolProps->location.type == CU_MEM_LOCATION_TYPE_NONE)
        dev = fc_cur_ctx(&c) == CUDA_SUCCESS ? c->dev : 0;
    else if (poolProps->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
        return CUDA_ERROR_INVALID_VALUE;
    if ((!managed && poolProps->allocType != CU_MEM_ALLOCATION_TYPE_PINNED) || !fc_dev_get(dev))
        return CUDA_ERROR_INVALID_VALUE;
    fc_lock();
    struct fc_pool *p = fc_pool_new(dev);
    if (p) {
        p->handle_types = (unsigned)poolProps->handleTypes;
        p->managed = managed;
        p->no_location = poolProps->location.type == CU_MEM_LOCATION_TYPE_NONE;
    }
    fc_unlock();
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *pool = (CUmemoryPool)p;
    return CUDA_SUCCESS;
}

/* As documented: outstanding allocations keep the pool's memory until they
 * are freed; everything the pool merely holds goes now. */
CUresult cuMemPoolDestroy(CUmemoryPool pool)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    struct fc_pool *p = (struct fc_pool *)pool;
    fc_lock();
    int ok = p && fc_pool_known(p) && p->alive && !p->is_default;
    if (ok) {
        p->alive = 0;
        if (fc_devs[p->dev].cur_pool == p)
            fc_devs[p->dev].cur_pool = fc_devs[p->dev].default_pool;
        fc_pool_trim(p, 0);
    }
    fc_unlock();
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    struct fc_pool *p = (struct fc_pool *)pool;
    fc_lock();
    int ok = p && fc_pool_known(p) && p->alive;
    if (ok)
        fc_pool_trim(p, minBytesToKeep);
    fc_unlock();
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* The checks cuMemPoolSetAttribute and cuMemPoolGetAttribute share: then
 * access reads or writes the attribute of a live pool, under the lock. */
static CUresult pool_attribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value,
                               CUresult (*access)(struct fc_pool *, CUmemPool_attribute, void *))
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    struct fc_pool *p = (struct fc_pool *)pool;
    if (!value)
        return CUDA_ERROR_INVALID_VALUE;
    fc_lock();
    CUresult r = p && fc_pool_known(p) && p->alive ? access(p, attr, value) : CUDA_ERROR_INVALID_VALUE;
    fc_unlock();
    return r;
}

static CUresult set_attribute(struct fc_pool *p, CUmemPool_attribute attr, void *value)
{
    switch (attr) {
    case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
        p->reuse[attr - 1] = *(int *)value;
        return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
        p->threshold = *(cuuint64_t *)value;
        return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: /* only resettable to 0 */
        if (*(cuuint64_t *)value != 0)
            return CUDA_ERROR_INVALID_VALUE;
        p->reserved_high = p->reserved;
        return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
        if (*(cuuint64_t *)value != 0)
            return CUDA_ERROR_INVALID_VALUE;
        p->used_high = p->used;
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

static CUresult get_attribute(struct fc_pool *p, CUmemPool_attribute attr, void *value)
{
    switch (attr) {
    case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
        *(int *)value = p->reuse[attr - 1];
        return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: *(cuuint64_t *)value = p->threshold; return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT: *(cuuint64_t *)value = p->reserved; return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: *(cuuint64_t *)value = p->reserved_high; return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_USED_MEM_CURRENT: *(cuuint64_t *)value = p->used; return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH: *(cuuint64_t *)value = p->used_high; return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)
{
    return pool_attribute(pool, attr, value, set_attribute);
}

CUresult cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)
{
    return pool_attribute(pool, attr, value, get_attribute);
}

CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out, CUdevice dev)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pool_out)
        return CUDA_ERROR_INVALID_VALUE;
    struct fc_dev *d = fc_dev_get(dev);
    if (!d)
        return CUDA_ERROR_INVALID_DEVICE;
    *pool_out = (CUmemoryPool)d->default_pool;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pool)
        return CUDA_ERROR_INVALID_VALUE;
    struct fc_dev *d = fc_dev_get(dev);
    if (!d)
        return CUDA_ERROR_INVALID_DEVICE;
    fc_lock();
    *pool = (CUmemoryPool)d->cur_pool;
    fc_unlock();
    return CUDA_SUCCESS;
}

CUresult cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    struct fc_dev *d = fc_dev_get(dev);
    if (!d)
        return CUDA_ERROR_INVALID_DEVICE;
    struct fc_pool *p = (struct fc_pool *)pool;
    fc_lock();
    int ok = p && fc_pool_known(p) && p->alive && p->dev == dev && !p->imported;
    if (ok)
        d->cur_pool = p;
    fc_unlock();
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
