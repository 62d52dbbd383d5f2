/* Multicast objects (cuMulticastCreate and its team and bindings).
 *
 * As cuda.h documents them: a multicast object is a generic allocation
 * handle, released with cuMemRelease and mappable with cuMemMap once every
 * one of its numDevices devices has been added; memory is bound to it per
 * device (cuMulticastBindMem from a cuMemCreate handle, cuMulticastBindAddr
 * from a mapped address) and unbound with the same offset and size.
 *
 * Here it is a VMM handle (fc_driver_vmm.c) with a memfd of its own, charged
 * to no device: on a GPU it holds no memory beyond what is bound to it, and
 * that memory is its cuMemCreate handle's, charged there.  A mapping of it
 * therefore reaches its own bytes, not the bound memory's (nothing here
 * broadcasts).  Where the real driver blocks until the team is complete
 * (binds, maps), a one-process fake would hang, so it refuses with
 * CUDA_ERROR_INVALID_VALUE.  A binding takes no reference on the memory
 * (cuda.h promises none). */
#include "fc_internal.h"

#include <stdlib.h>

struct fc_mc_bind {
    int dev;
    size_t mc_offset, size;
    struct fc_mc_bind *next;
};

struct fc_mc {
    unsigned ndev, nadded;
    int added[FC_MAX_DEVICES];
    size_t size;
    struct fc_mc_bind *binds;
};

int fc_mc_team_complete(const struct fc_mc *mc)
{
    return mc->nadded == mc->ndev;
}

void fc_mc_free(struct fc_mc *mc)
{
    if (!mc)
        return;
    while (mc->binds) {
        struct fc_mc_bind *b = mc->binds;
        mc->binds = b->next;
        free(b);
    }
    free(mc);
}

static int in_team(const struct fc_mc *mc, int dev)
{
    for (unsigned i = 0; i < mc->nadded; i++)
        if (mc->added[i] == dev)
            return 1;
    return 0;
}

static int granular(size_t n)
{
    return n % FC_BIG == 0;
}

CUresult cuMulticastGetGranularity(size_t *granularity, const CUmulticastObjectProp *prop,
                                   CUmulticastGranularity_flags option)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    (void)option; /* minimum and recommended are both 2 MiB, as for cuMemCreate */
    if (!granularity || !prop)
        return CUDA_ERROR_INVALID_VALUE;
    *granularity = FC_BIG;
    return CUDA_SUCCESS;
}

CUresult cuMulticastCreate(CUmemGenericAllocationHandle *mcHandle, const CUmulticastObjectProp *prop)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!mcHandle || !prop || prop->numDevices == 0 || prop->size == 0 || !granular(prop->size) ||
        prop->flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (prop->numDevices > (unsigned)fc_ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    /* Fabric and Win32 handles do not exist here (as for cuMemCreate). */
    if (prop->handleTypes & ~(unsigned long long)CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
        return CUDA_ERROR_NOT_SUPPORTED;
    struct fc_mc *mc = calloc(1, sizeof *mc);
    if (!mc)
        return CUDA_ERROR_OUT_OF_MEMORY;
    mc->ndev = prop->numDevices;
    mc->size = prop->size;
    struct fc_ctx *c;
    int dev = fc_cur_ctx(&c) == CUDA_SUCCESS ? c->dev : 0;
    CUmemGenericAllocationHandle h = fc_vmm_add_multicast(prop->size, dev, mc);
    if (!h) {
        free(mc);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *mcHandle = h;
    return CUDA_SUCCESS;
}

CUresult cuMulticastAddDevice(CUmemGenericAllocationHandle mcHandle, CUdevice dev)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!fc_dev_get(dev))
        return CUDA_ERROR_INVALID_DEVICE;
    CUresult r = CUDA_SUCCESS;
    fc_lock();
    struct fc_mc *mc = fc_vmm_multicast(mcHandle);
    if (!mc || in_team(mc, dev) || fc_mc_team_complete(mc))
        r = CUDA_ERROR_INVALID_VALUE;
    else
        mc->added[mc->nadded++] = dev;
    fc_unlock();
    return r;
}

/* Lock held: records a binding of size bytes of dev's memory at mc_offset,
 * which must be whole granules inside the object and overlap no other
 * binding of that device. */
static CUresult bind(struct fc_mc *mc, size_t mc_offset, int dev, size_t size)
{
    if (!fc_mc_team_complete(mc) || !in_team(mc, dev))
        return CUDA_ERROR_INVALID_VALUE;
    if (size == 0 || !granular(size) || !granular(mc_offset) || mc_offset > mc->size ||
        size > mc->size - mc_offset)
        return CUDA_ERROR_INVALID_VALUE;
    for (struct fc_mc_bind *b = mc->binds; b; b = b->next)
        if (b->dev == dev && mc_offset < b->mc_offset + b->size && b->mc_offset < mc_offset + size)
            return CUDA_ERROR_INVALID_VALUE;
    struct fc_mc_bind *b = calloc(1, sizeof *b);
    if (!b)
        return CUDA_ERROR_OUT_OF_MEMORY;
    b->dev = dev;
    b->mc_offset = mc_offset;
    b->size = size;
    b->next = mc->binds;
    mc->binds = b;
    return CUDA_SUCCESS;
}

CUresult cuMulticastBindMem(CUmemGenericAllocationHandle mcHandle, size_t mcOffset,
                            CUmemGenericAllocationHandle memHandle, size_t memOffset, size_t size,
                            unsigned long long flags)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (flags != 0 || !granular(memOffset))
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = CUDA_ERROR_INVALID_VALUE;
    fc_lock();
    struct fc_mc *mc = fc_vmm_multicast(mcHandle);
    int dev;
    size_t msize;
    if (mc && fc_vmm_memory(memHandle, &dev, &msize) && memOffset <= msize && size <= msize - memOffset)
        r = bind(mc, mcOffset, dev, size);
    fc_unlock();
    return r;
}

CUresult cuMulticastBindAddr(CUmemGenericAllocationHandle mcHandle, size_t mcOffset, CUdeviceptr memptr,
                             size_t size, unsigned long long flags)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (flags != 0 || !granular((size_t)memptr))
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = CUDA_ERROR_INVALID_VALUE;
    fc_lock();
    struct fc_mc *mc = fc_vmm_multicast(mcHandle);
    int dev;
    size_t room;
    /* cudaMallocAsync memory may be bound too on a GPU; here only VMM
     * mappings can, as fakecuda's pools are not made of VMM handles. */
    if (mc && fc_vmm_memory_at((uintptr_t)memptr, &dev, &room) && size <= room)
        r = bind(mc, mcOffset, dev, size);
    fc_unlock();
    return r;
}

CUresult cuMulticastUnbind(CUmemGenericAllocationHandle mcHandle, CUdevice dev, size_t mcOffset, size_t size)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!fc_dev_get(dev))
        return CUDA_ERROR_INVALID_DEVICE;
    CUresult r = CUDA_ERROR_INVALID_VALUE;
    fc_lock();
    struct fc_mc *mc = fc_vmm_multicast(mcHandle);
    /* cuda.h: offset and size must be those of the bind. */
    for (struct fc_mc_bind **pp = mc ? &mc->binds : NULL; pp && *pp; pp = &(*pp)->next) {
        struct fc_mc_bind *b = *pp;
        if (b->dev == dev && b->mc_offset == mcOffset && b->size == size) {
            *pp = b->next;
            free(b);
            r = CUDA_SUCCESS;
            break;
        }
    }
    fc_unlock();
    return r;
}
