/* CUDA arrays and mipmapped arrays: opaque handles (pointers to a private
 * struct) whose backing store, width*height*depth*element bytes, is taken
 * from the device's memory like any allocation.  The memory is not
 * addressable through a device pointer, as on a real GPU. */
#include "fc_internal.h"

#include <stdlib.h>

struct fc_array {
    int alive;
    int mipmapped;
    unsigned levels;
    struct fc_seg *seg;
    struct fc_ctx *ctx;
    CUDA_ARRAY3D_DESCRIPTOR desc;
    struct fc_array *next;
};
static struct fc_array *arrays; /* live ones only, under fc_lock */

static size_t format_bytes(CUarray_format f)
{
    switch (f) {
    case CU_AD_FORMAT_UNSIGNED_INT8: case CU_AD_FORMAT_SIGNED_INT8: return 1;
    case CU_AD_FORMAT_UNSIGNED_INT16: case CU_AD_FORMAT_SIGNED_INT16: case CU_AD_FORMAT_HALF: return 2;
    case CU_AD_FORMAT_UNSIGNED_INT32: case CU_AD_FORMAT_SIGNED_INT32: case CU_AD_FORMAT_FLOAT: return 4;
    default: return 0;
    }
}

static size_t mul_sat(size_t a, size_t b) { return (b && a > SIZE_MAX / b) ? SIZE_MAX : a * b; }

static size_t level_bytes(const CUDA_ARRAY3D_DESCRIPTOR *d, unsigned level, size_t elem)
{
    size_t w = d->Width >> level, h = d->Height >> level, z = d->Depth;
    if (!(d->Flags & CUDA_ARRAY3D_LAYERED))
        z >>= level; /* layers do not shrink with the level */
    w = w ? w : 1;
    h = h ? h : 1;
    z = z ? z : 1;
    return mul_sat(mul_sat(mul_sat(w, h), z), elem);
}

/* room NULL: a new array, its store taken from the device's memory.  Else
 * an array over memory that is not this device's to charge (external
 * memory), whose texels must fit in *room bytes. */
static CUresult array_make(void **handle, const CUDA_ARRAY3D_DESCRIPTOR *d, unsigned levels, int mip,
                           const size_t *room)
{
    struct fc_ctx *c;
    CUresult r = fc_cur_ctx(&c);
    if (r)
        return r;
    if (!handle || !d || d->Width == 0 || levels == 0 || d->NumChannels < 1 || d->NumChannels > 4)
        return CUDA_ERROR_INVALID_VALUE;
    size_t fb = format_bytes(d->Format);
    if (!fb)
        return CUDA_ERROR_INVALID_VALUE;
    size_t elem = fb * d->NumChannels, bytes = 0;
    for (unsigned l = 0; l < levels && bytes != SIZE_MAX; l++) {
        size_t b = level_bytes(d, l, elem);
        bytes = bytes > SIZE_MAX - b ? SIZE_MAX : bytes + b;
    }
    size_t rsize = fc_round(bytes);
    if (bytes == SIZE_MAX || rsize == 0)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (room && bytes > *room)
        return CUDA_ERROR_INVALID_VALUE;
    struct fc_array *a = calloc(1, sizeof *a);
    if (!a)
        return CUDA_ERROR_OUT_OF_MEMORY;
    fc_lock();
    a->seg = room ? fc_heap_map(&fc_devs[c->dev], rsize) : fc_heap_alloc(&fc_devs[c->dev], rsize);
    if (a->seg) {
        a->seg->kind = FC_K_ARRAY;
        a->seg->req = bytes;
        a->seg->ctx = c;
        a->alive = 1;
        a->mipmapped = mip;
        a->levels = levels;
        a->ctx = c;
        a->desc = *d;
        a->next = arrays;
        arrays = a;
    }
    fc_unlock();
    if (!a->seg) {
        free(a);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *handle = a;
    return CUDA_SUCCESS;
}

CUresult cuArrayCreate_v2(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *pAllocateArray)
{
    if (!pAllocateArray)
        return CUDA_ERROR_INVALID_VALUE;
    CUDA_ARRAY3D_DESCRIPTOR d = {
        .Width = pAllocateArray->Width, .Height = pAllocateArray->Height, .Depth = 0,
        .Format = pAllocateArray->Format, .NumChannels = pAllocateArray->NumChannels, .Flags = 0,
    };
    return array_make((void **)pHandle, &d, 1, 0, NULL);
}

CUresult cuArray3DCreate_v2(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *pAllocateArray)
{
    return array_make((void **)pHandle, pAllocateArray, 1, 0, NULL);
}

CUresult cuMipmappedArrayCreate(CUmipmappedArray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *pMipmappedArrayDesc,
                                unsigned int numMipmapLevels)
{
    return array_make((void **)pHandle, pMipmappedArrayDesc, numMipmapLevels, 1, NULL);
}

CUresult fc_array_map(CUmipmappedArray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *desc, unsigned levels, size_t room)
{
    return array_make((void **)pHandle, desc, levels, 1, &room);
}

static void array_free(struct fc_array *a)
{
    for (struct fc_array **pp = &arrays; *pp; pp = &(*pp)->next)
        if (*pp == a) {
            *pp = a->next;
            break;
        }
    fc_heap_free(&fc_devs[a->ctx->dev], a->seg);
    free(a);
}

static CUresult array_destroy(void *h, int mip)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    fc_lock();
    struct fc_array *a = arrays;
    while (a && (void *)a != h)
        a = a->next;
    int ok = a && a->mipmapped == mip;
    if (ok)
        array_free(a);
    fc_unlock();
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuArrayDestroy(CUarray hArray) { return array_destroy(hArray, 0); }
CUresult cuMipmappedArrayDestroy(CUmipmappedArray hMipmappedArray) { return array_destroy(hMipmappedArray, 1); }

CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR *pArrayDescriptor, CUarray hArray)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pArrayDescriptor)
        return CUDA_ERROR_INVALID_VALUE;
    fc_lock();
    struct fc_array *a = arrays;
    while (a && (void *)a != (void *)hArray)
        a = a->next;
    if (a && !a->mipmapped)
        *pArrayDescriptor = a->desc;
    fc_unlock();
    return a && !a->mipmapped ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

void fc_array_release_ctx(struct fc_ctx *c)
{
    for (struct fc_array **pp = &arrays; *pp;) {
        struct fc_array *a = *pp;
        if (a->ctx == c)
            array_free(a); /* unlinks *pp */
        else
            pp = &a->next;
    }
}
