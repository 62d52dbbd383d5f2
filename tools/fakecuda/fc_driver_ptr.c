/* cuPointerGetAttribute(s): what the driver knows about an address, from the
 * device heaps, the VMM mappings and the pinned/registered host ranges. */
#include "fc_internal.h"

#include <string.h>
#include <sys/mman.h>

struct info {
    int found;
    unsigned type;         /* CUmemorytype */
    struct fc_ctx *ctx;
    int dev;
    int managed, host_ok, mapped, access;
    uintptr_t rstart, mstart;
    size_t rsize, msize;
    unsigned long long id;
    struct fc_pool *pool;
};

static void describe(uintptr_t p, struct info *in)
{
    memset(in, 0, sizeof *in);
    struct fc_dev *d;
    uintptr_t hs;
    size_t hz;
    int reg, rw;
    fc_lock();
    struct fc_seg *s = fc_heap_find(p, 0, &d);
    if (s && s->kind != FC_K_ARRAY && !(s->kind == FC_K_POOL && s->pool_free) &&
        !(s->kind == FC_K_GRAPH && !s->graph_live)) {
        in->found = 1;
        in->type = CU_MEMORYTYPE_DEVICE;
        in->ctx = s->ctx;
        in->dev = d->ord;
        in->managed = s->kind == FC_K_MANAGED || (s->kind == FC_K_POOL && s->pool && s->pool->managed);
        in->host_ok = in->managed;
        in->mapped = 1;
        in->access = CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE;
        in->rstart = in->mstart = s->start;
        in->rsize = in->msize = s->req;
        in->id = s->id;
        in->pool = s->kind == FC_K_POOL ? s->pool : NULL;
    } else if (fc_vmm_lookup(p, &in->rstart, &in->rsize, &in->mstart, &in->msize, &in->dev, &rw) &&
               in->msize) {
        in->found = 1;
        in->type = CU_MEMORYTYPE_DEVICE;
        in->mapped = 1;
        in->access = rw ? CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE : CU_POINTER_ATTRIBUTE_ACCESS_FLAG_NONE;
        in->id = (unsigned long long)in->mstart;
    } else if (fc_host_lookup(p, &hs, &hz, &in->ctx, &reg)) {
        in->found = 1;
        in->type = CU_MEMORYTYPE_HOST;
        in->dev = in->ctx->dev;
        in->host_ok = 1;
        in->mapped = 1;
        in->access = CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE;
        in->rstart = in->mstart = hs;
        in->rsize = in->msize = hz;
        in->id = (unsigned long long)hs;
    }
    fc_unlock();
}

static CUresult one(void *data, CUpointer_attribute a, uintptr_t p, const struct info *in)
{
    switch (a) {
    case CU_POINTER_ATTRIBUTE_CONTEXT: *(CUcontext *)data = (CUcontext)in->ctx; break;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: *(unsigned *)data = in->type; break;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER: *(CUdeviceptr *)data = (CUdeviceptr)p; break;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
        if (!in->host_ok)
            return CUDA_ERROR_INVALID_VALUE;
        *(void **)data = (void *)p;
        break;
    case CU_POINTER_ATTRIBUTE_BUFFER_ID: *(unsigned long long *)data = in->id; break;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED: *(unsigned *)data = (unsigned)in->managed; break;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *(int *)data = in->dev; break;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: *(CUdeviceptr *)data = (CUdeviceptr)in->rstart; break;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE: *(size_t *)data = in->rsize; break;
    case CU_POINTER_ATTRIBUTE_MAPPED: *(unsigned *)data = (unsigned)in->mapped; break;
    case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS: *(unsigned *)data = (unsigned)in->access; break;
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: *(CUmemoryPool *)data = (CUmemoryPool)in->pool; break;
    case CU_POINTER_ATTRIBUTE_MAPPING_SIZE: *(size_t *)data = in->msize; break;
    case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR: *(void **)data = (void *)in->mstart; break;
    case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
    case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS: *(unsigned *)data = 0; break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!data)
        return CUDA_ERROR_INVALID_VALUE;
    struct info in;
    describe((uintptr_t)ptr, &in);
    if (!in.found)
        return CUDA_ERROR_INVALID_VALUE;
    return one(data, attribute, (uintptr_t)ptr, &in);
}

/* Unlike the singular form, an unknown pointer is not an error here: its
 * attributes read as zero / unregistered, like the real driver. */
CUresult cuPointerGetAttributes(unsigned int numAttributes, CUpointer_attribute *attributes, void **data,
                                CUdeviceptr ptr)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!attributes || !data)
        return CUDA_ERROR_INVALID_VALUE;
    struct info in;
    describe((uintptr_t)ptr, &in);
    if (!in.found)
        in.dev = -2; /* "no device", as the real driver reports */
    for (unsigned i = 0; i < numAttributes; i++) {
        if (!data[i])
            continue;
        if (one(data[i], attributes[i], (uintptr_t)ptr, &in) != CUDA_SUCCESS) {
            if (attributes[i] == CU_POINTER_ATTRIBUTE_HOST_POINTER)
                *(void **)data[i] = NULL;
            else
                return CUDA_ERROR_INVALID_VALUE;
        }
    }
    return CUDA_SUCCESS;
}
