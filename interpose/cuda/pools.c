#include "cuda/pools.h"

#include <pthread.h>
#include <stdatomic.h>

#include <cuda.h>

#include "base/internal.h"
#include "base/lock.h"
#include "cuda/calls.h"
#include "resolve/resolve.h"
#include "snapshot_format.h"
#include "state/track.h"

GL_DEFINE_REAL(CUresult, cuDeviceGetDefaultMemPool, (CUmemoryPool *, CUdevice))
GL_DEFINE_REAL(CUresult, cuMemPoolGetAttribute, (CUmemoryPool, CUmemPool_attribute, void *))
GL_DEFINE_REAL(CUresult, cuCtxPushCurrent_v2, (CUcontext))
GL_DEFINE_REAL(CUresult, cuCtxPopCurrent_v2, (CUcontext *))
GL_DEFINE_REAL(CUresult, cuMemGetInfo_v2, (size_t *, size_t *))
GL_DEFINE_REAL(CUresult, cuDevicePrimaryCtxGetState, (CUdevice, unsigned int *, int *))
GL_DEFINE_REAL(CUresult, cuDeviceGetGraphMemAttribute, (CUdevice, CUgraphMem_attribute, void *))

static _Atomic uint64_t default_pool_devices[2]; /* bit per device 0..127 */
static _Atomic uint64_t graph_pool_devices[2];   /* the same for graph memory */

static _Atomic uint64_t pools[GL_POOLS_MAX];
static _Atomic int32_t pool_devices[GL_POOLS_MAX];
static _Atomic size_t npools;
static struct gl_lock pools_lock = GL_LOCK_INIT(POOLS);

static void note_bit(_Atomic uint64_t *words, int32_t device)
{
    if (device < 0 || device >= 128)
        return;
    uint64_t bit = 1ull << (device % 64);
    _Atomic uint64_t *word = &words[device / 64];
    if ((atomic_load_explicit(word, memory_order_relaxed) & bit) == 0)
        atomic_fetch_or(word, bit);
}

static bool noted(_Atomic uint64_t *words, int32_t d)
{
    return (atomic_load(&words[d / 64]) & (1ull << (d % 64))) != 0;
}

void gl_pools_note_default(int32_t device) { note_bit(default_pool_devices, device); }
void gl_pools_note_graph(int32_t device) { note_bit(graph_pool_devices, device); }

static int graph_attr(cuDeviceGetGraphMemAttribute_fn get, int32_t d, CUgraphMem_attribute a, uint64_t *out)
{
    cuuint64_t v = 0;
    if (get(d, a, &v) != CUDA_SUCCESS)
        return -1;
    *out = v;
    return 0;
}

/* The graph memory pool's reserve in the driver's view: what graph
 * allocations took and cuDeviceGraphMemTrim has not given back. */
static size_t query_graph(int32_t d, struct gl_pool_info *out, size_t n, size_t max)
{
    cuDeviceGetGraphMemAttribute_fn get = REAL_cuDeviceGetGraphMemAttribute();
    if (n >= max || get == NULL)
        return n;
    struct gl_pool_info *p = &out[n];
    p->pool = GL_POOL_GRAPH_MEM;
    p->device = d;
    if (graph_attr(get, d, CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT, &p->reserved) ||
        graph_attr(get, d, CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT, &p->used) ||
        graph_attr(get, d, CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH, &p->reserved_high) ||
        graph_attr(get, d, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, &p->used_high))
        return n;
    return n + 1;
}

void gl_pools_note(uint64_t pool, int32_t device)
{
    size_t n = atomic_load_explicit(&npools, memory_order_acquire);
    for (size_t i = 0; i < n; i++)
        if (atomic_load_explicit(&pools[i], memory_order_relaxed) == pool)
            return;
    gl_lock(&pools_lock);
    n = atomic_load(&npools);
    size_t i = 0;
    while (i < n && atomic_load(&pools[i]) != pool)
        i++;
    if (i == n && n < GL_POOLS_MAX) {
        atomic_store(&pools[n], pool);
        atomic_store(&pool_devices[n], device);
        atomic_store_explicit(&npools, n + 1, memory_order_release);
    }
    gl_unlock(&pools_lock);
}

static int attr(CUmemoryPool pool, CUmemPool_attribute a, uint64_t *out)
{
    cuMemPoolGetAttribute_fn get = REAL_cuMemPoolGetAttribute();
    cuuint64_t v = 0;
    if (get == NULL || get(pool, a, &v) != CUDA_SUCCESS)
        return -1;
    *out = v;
    return 0;
}

static size_t query_one(CUmemoryPool pool, int32_t device, struct gl_pool_info *out, size_t n, size_t max)
{
    if (n >= max)
        return n;
    for (size_t i = 0; i < n; i++)
        if (out[i].pool == (uintptr_t)pool)
            return n; /* a default pool also used explicitly */
    struct gl_pool_info *p = &out[n];
    p->pool = (uintptr_t)pool;
    p->device = device;
    if (attr(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &p->reserved) ||
        attr(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &p->used) ||
        attr(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, &p->reserved_high) ||
        attr(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &p->used_high))
        return n; /* the pool is gone (destroyed) or the driver is not there */
    return n + 1;
}

size_t gl_pools_query(struct gl_pool_info *out, size_t max)
{
    size_t n = 0;
    gl_caller_pc = 0;
    cuDeviceGetDefaultMemPool_fn get_default = REAL_cuDeviceGetDefaultMemPool();
    for (int32_t d = 0; d < 128; d++)
        if (noted(graph_pool_devices, d))
            n = query_graph(d, out, n, max);
    for (int32_t d = 0; d < 128 && get_default != NULL; d++) {
        if (!noted(default_pool_devices, d))
            continue;
        CUmemoryPool pool;
        if (get_default(&pool, d) == CUDA_SUCCESS)
            n = query_one(pool, d, out, n, max);
    }
    size_t np = atomic_load_explicit(&npools, memory_order_acquire);
    for (size_t i = 0; i < np; i++)
        n = query_one((CUmemoryPool)(uintptr_t)atomic_load(&pools[i]), atomic_load(&pool_devices[i]), out, n, max);
    return n;
}

int gl_current_mem_info(uint64_t *free_bytes, uint64_t *total)
{
    cuMemGetInfo_v2_fn info = REAL_cuMemGetInfo_v2();
    size_t f = 0, t = 0;
    if (info == NULL || info(&f, &t) != CUDA_SUCCESS)
        return -1;
    *free_bytes = f;
    *total = t;
    return 0;
}

int gl_device_mem_info(int32_t device, uint64_t *free_bytes, uint64_t *total)
{
    gl_caller_pc = 0;
    uint64_t ctx = gl_where_primary(device);
    cuCtxPushCurrent_v2_fn push = REAL_cuCtxPushCurrent_v2();
    cuCtxPopCurrent_v2_fn pop = REAL_cuCtxPopCurrent_v2();
    cuDevicePrimaryCtxGetState_fn state = REAL_cuDevicePrimaryCtxGetState();
    if (ctx == 0 || push == NULL || pop == NULL)
        return -1;
    /* A primary context the program has released or reset is not brought
     * back to life (that would take device memory) just to be asked. */
    unsigned int flags;
    int alive = 0;
    if (state == NULL || state(device, &flags, &alive) != CUDA_SUCCESS || !alive)
        return -1;
    if (push((CUcontext)(uintptr_t)ctx) != CUDA_SUCCESS)
        return -1;
    int rc = gl_current_mem_info(free_bytes, total);
    CUcontext popped;
    pop(&popped);
    return rc;
}

void gl_pools_postfork_child(void)
{
    /* A program thread may have been noting a pool at fork. */
    gl_lock_init(&pools_lock, GL_LOCK_POOLS, 0);
}
