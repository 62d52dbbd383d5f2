/* CUDA 13.0's pools by location and allocation type: cuMemGetDefaultMemPool,
 * cuMemGetMemPool, cuMemSetMemPool.
 *
 * A pinned pool on a device is that device's default or current pool (the
 * cuDeviceGet/SetMemPool ones).  Managed pools have defaults of their own:
 * one per device and one with no preferred location (CU_MEM_LOCATION_TYPE_NONE,
 * held by device 0 here), made when first asked for; each location's
 * current managed pool is its default until cuMemSetMemPool names another
 * managed pool of that location.  Host and host-NUMA pools are not modelled
 * (CUDA_ERROR_NOT_SUPPORTED, one of the documented answers). */
#include "fc_internal.h"

/* all under fc_lock; index FC_MAX_DEVICES is the NONE location */
static struct fc_pool *managed_default[FC_MAX_DEVICES + 1], *managed_current[FC_MAX_DEVICES + 1];

/* The slot of a location for type, or -1 with *err set. */
static int slot(const CUmemLocation *loc, CUmemAllocationType type, CUresult *err)
{
    *err = CUDA_ERROR_INVALID_VALUE;
    if (!loc || (type != CU_MEM_ALLOCATION_TYPE_PINNED && type != CU_MEM_ALLOCATION_TYPE_MANAGED))
        return -1;
    if (loc->type == CU_MEM_LOCATION_TYPE_HOST || loc->type == CU_MEM_LOCATION_TYPE_HOST_NUMA) {
        *err = CUDA_ERROR_NOT_SUPPORTED;
        return -1;
    }
    if (loc->type == CU_MEM_LOCATION_TYPE_NONE && type == CU_MEM_ALLOCATION_TYPE_MANAGED)
        return FC_MAX_DEVICES;
    if (loc->type != CU_MEM_LOCATION_TYPE_DEVICE)
        return -1;
    if (!fc_dev_get(loc->id)) {
        *err = CUDA_ERROR_INVALID_DEVICE;
        return -1;
    }
    return loc->id;
}

/* Lock held.  NULL when memory ran out. */
static struct fc_pool *managed_default_of(int s)
{
    if (!managed_default[s]) {
        struct fc_pool *p = fc_pool_new(s == FC_MAX_DEVICES ? 0 : s);
        if (!p)
            return NULL;
        p->managed = 1;
        p->no_location = s == FC_MAX_DEVICES;
        p->is_default = 1;
        managed_default[s] = p;
    }
    if (!managed_current[s] || !managed_current[s]->alive)
        managed_current[s] = managed_default[s];
    return managed_default[s];
}

static CUresult get_pool(CUmemoryPool *out, CUmemLocation *loc, CUmemAllocationType type, int current)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    CUresult err;
    int s = slot(loc, type, &err);
    if (!out || s < 0)
        return !out ? CUDA_ERROR_INVALID_VALUE : err;
    struct fc_pool *p;
    fc_lock();
    if (type == CU_MEM_ALLOCATION_TYPE_PINNED)
        p = current ? fc_devs[s].cur_pool : fc_devs[s].default_pool;
    else
        p = managed_default_of(s) ? (current ? managed_current[s] : managed_default[s]) : NULL;
    fc_unlock();
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *out = (CUmemoryPool)p;
    return CUDA_SUCCESS;
}

CUresult cuMemGetDefaultMemPool(CUmemoryPool *pool_out, CUmemLocation *location, CUmemAllocationType type)
{
    return get_pool(pool_out, location, type, 0);
}

CUresult cuMemGetMemPool(CUmemoryPool *pool, CUmemLocation *location, CUmemAllocationType type)
{
    return get_pool(pool, location, type, 1);
}

/* "The location and allocation type specified must match those of the
 * pool"; for a pinned pool on a device this is cuDeviceSetMemPool. */
CUresult cuMemSetMemPool(CUmemLocation *location, CUmemAllocationType type, CUmemoryPool pool)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    CUresult err;
    int s = slot(location, type, &err);
    if (s < 0)
        return err;
    if (type == CU_MEM_ALLOCATION_TYPE_PINNED)
        return cuDeviceSetMemPool(s, pool);
    struct fc_pool *p = (struct fc_pool *)pool;
    fc_lock();
    int ok = p && fc_pool_known(p) && p->alive && p->managed && !p->imported &&
             (s == FC_MAX_DEVICES ? p->no_location : !p->no_location && p->dev == s) &&
             managed_default_of(s) != NULL;
    if (ok)
        managed_current[s] = p;
    fc_unlock();
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
