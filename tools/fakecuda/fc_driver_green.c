/* Green contexts (cuda.h, CUDA_GREEN_CONTEXTS): a device's SMs as a
 * resource, split into groups, a descriptor of some of them, and a green
 * context made from it.  What matters for memory is cuda.h's word:
 * cuGreenCtxCreate "will retain the primary context on device dev, which is
 * released when the green context is destroyed", and the CUcontext
 * cuCtxFromGreenCtx gives "is a normal primary context but with the
 * resources of the green context".  So the green context holds one reference
 * on the primary context (the same count cuDevicePrimaryCtxRetain takes),
 * its CUcontext is a handle of its own whose allocations the primary context
 * owns (fc_cur_ctx), and cuGreenCtxDestroy's release is a release like any:
 * the last one resets the primary context and its memory goes.
 *
 * Green contexts and descriptors are never freed, so a stale handle is
 * refused, not crashed on.  SM counts are those of an H100/H200 (132 SMs,
 * groups of at least 8, in multiples of 8: cuda.h's guideline for 9.0+). */
#include "fc_internal.h"

#include <stdlib.h>
#include <string.h>

#define FC_SM_COUNT 132
#define FC_SM_MIN 8
#define FC_SM_ALIGN 8
#define FC_SM_FINE 2 /* CU_DEV_SM_RESOURCE_SPLIT_IGNORE_SM_COSCHEDULING */

struct fc_green {
    struct fc_ctx conv;          /* what cuCtxFromGreenCtx hands out */
    int dev;
    int alive;
    unsigned sm;                 /* SMs of its descriptor */
    unsigned long long id;
    struct fc_green *next_all;
};

struct fc_desc {
    int dev;
    unsigned sm;
    struct fc_desc *next_all;
};

static struct fc_green *all_green; /* under fc_lock, never freed */
static struct fc_desc *all_desc;

/* What fakecuda keeps in a CUdevResource's opaque bytes: that it is one of
 * ours, its device, and which split made it (0: a whole device's or green
 * context's SMs, which may be split; a split's outputs may not). */
struct fc_res_tag {
    unsigned magic;
    int dev;
    unsigned long long split;
};
#define FC_RES_MAGIC 0x46435253u /* "FCRS" */
_Static_assert(sizeof(struct fc_res_tag) <= sizeof(((CUdevResource *)0)->_internal_padding), "tag fits");

static void res_fill(CUdevResource *r, int dev, unsigned sm, unsigned min, unsigned align, unsigned long long split)
{
    memset(r, 0, sizeof *r);
    r->type = CU_DEV_RESOURCE_TYPE_SM;
    r->sm.smCount = sm;
    r->sm.minSmPartitionSize = min;
    r->sm.smCoscheduledAlignment = align;
    struct fc_res_tag t = {FC_RES_MAGIC, dev, split};
    memcpy(r->_internal_padding, &t, sizeof t);
}

/* 0 when r is an SM resource fakecuda made, with its tag in *t. */
static CUresult res_read(const CUdevResource *r, struct fc_res_tag *t)
{
    if (!r)
        return CUDA_ERROR_INVALID_VALUE;
    memcpy(t, r->_internal_padding, sizeof *t);
    if (r->type != CU_DEV_RESOURCE_TYPE_SM)
        return CUDA_ERROR_INVALID_RESOURCE_TYPE;
    if (t->magic != FC_RES_MAGIC || !fc_dev_get(t->dev))
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

static int green_known(const struct fc_green *g)
{
    for (struct fc_green *x = all_green; x; x = x->next_all)
        if (x == g)
            return 1;
    return 0;
}

int fc_green_live(const struct fc_green *g)
{
    return g && green_known(g) && g->alive;
}

struct fc_ctx *fc_green_primary(const struct fc_green *g)
{
    return fc_green_live(g) ? g->conv.owner : NULL;
}

#define NEED_INIT() do { if (!fc_initialized()) return CUDA_ERROR_NOT_INITIALIZED; } while (0)

CUresult cuDeviceGetDevResource(CUdevice device, CUdevResource *resource, CUdevResourceType type)
{
    NEED_INIT();
    if (!resource)
        return CUDA_ERROR_INVALID_VALUE;
    if (!fc_dev_get(device))
        return CUDA_ERROR_INVALID_DEVICE;
    if (type != CU_DEV_RESOURCE_TYPE_SM)
        return CUDA_ERROR_INVALID_RESOURCE_TYPE;
    res_fill(resource, device, FC_SM_COUNT, FC_SM_MIN, FC_SM_ALIGN, 0);
    return CUDA_SUCCESS;
}

CUresult cuDevSmResourceSplitByCount(CUdevResource *result, unsigned int *nbGroups, const CUdevResource *input,
                                     CUdevResource *remaining, unsigned int useFlags, unsigned int minCount)
{
    NEED_INIT();
    struct fc_res_tag t;
    if (!nbGroups)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = res_read(input, &t);
    if (r)
        return r;
    if (useFlags & ~(unsigned)(CU_DEV_SM_RESOURCE_SPLIT_IGNORE_SM_COSCHEDULING |
                               CU_DEV_SM_RESOURCE_SPLIT_MAX_POTENTIAL_CLUSTER_SIZE))
        return CUDA_ERROR_INVALID_VALUE;
    if (t.split != 0) /* "cannot be split again without first creating ... a green context" */
        return CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION;
    unsigned have = input->sm.smCount;
    if (minCount > have)
        return CUDA_ERROR_INVALID_VALUE;
    unsigned min = input->sm.minSmPartitionSize, align = input->sm.smCoscheduledAlignment;
    if (useFlags & CU_DEV_SM_RESOURCE_SPLIT_IGNORE_SM_COSCHEDULING)
        min = align = FC_SM_FINE;
    /* each group: minCount rounded up to the minimum and the alignment */
    unsigned size = minCount > min ? minCount : min;
    size = (size + align - 1) / align * align;
    unsigned possible = size ? have / size : 0;
    if (!result) {
        *nbGroups = possible;
        return CUDA_SUCCESS;
    }
    if (*nbGroups == 0)
        return CUDA_ERROR_INVALID_VALUE;
    unsigned n = *nbGroups < possible ? *nbGroups : possible;
    unsigned long long split = fc_next_id();
    for (unsigned i = 0; i < n; i++)
        res_fill(&result[i], t.dev, size, min, align, split);
    if (remaining)
        res_fill(remaining, t.dev, have - n * size, min, align, split);
    *nbGroups = n;
    return CUDA_SUCCESS;
}

CUresult cuDevResourceGenerateDesc(CUdevResourceDesc *phDesc, CUdevResource *resources, unsigned int nbResources)
{
    NEED_INIT();
    if (!phDesc || !resources || nbResources == 0)
        return CUDA_ERROR_INVALID_VALUE;
    struct fc_res_tag first;
    unsigned sm = 0;
    for (unsigned i = 0; i < nbResources; i++) {
        struct fc_res_tag t;
        CUresult r = res_read(&resources[i], &t);
        if (r)
            return r;
        if (i == 0)
            first = t;
        /* one device, and several SM resources only from one split */
        else if (t.dev != first.dev || t.split != first.split || t.split == 0)
            return CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION;
        sm += resources[i].sm.smCount;
    }
    if (sm == 0)
        return CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION;
    struct fc_desc *d = calloc(1, sizeof *d);
    if (!d)
        return CUDA_ERROR_OUT_OF_MEMORY;
    d->dev = first.dev;
    d->sm = sm;
    fc_lock();
    d->next_all = all_desc;
    all_desc = d;
    fc_unlock();
    *phDesc = (CUdevResourceDesc)d;
    return CUDA_SUCCESS;
}

static int desc_known(const struct fc_desc *d)
{
    for (struct fc_desc *x = all_desc; x; x = x->next_all)
        if (x == d)
            return 1;
    return 0;
}

CUresult cuGreenCtxCreate(CUgreenCtx *phCtx, CUdevResourceDesc desc, CUdevice dev, unsigned int flags)
{
    NEED_INIT();
    if (!phCtx)
        return CUDA_ERROR_INVALID_VALUE;
    struct fc_dev *d = fc_dev_get(dev);
    if (!d)
        return CUDA_ERROR_INVALID_DEVICE;
    if (!(flags & CU_GREEN_CTX_DEFAULT_STREAM) || (flags & ~(unsigned)CU_GREEN_CTX_DEFAULT_STREAM))
        return CUDA_ERROR_INVALID_VALUE; /* the default stream is required */
    struct fc_desc *ds = (struct fc_desc *)desc;
    fc_lock();
    int ok = ds && desc_known(ds) && ds->dev == dev;
    fc_unlock();
    if (!ok)
        return CUDA_ERROR_INVALID_VALUE;
    struct fc_green *g = calloc(1, sizeof *g);
    if (!g)
        return CUDA_ERROR_OUT_OF_MEMORY;
    g->dev = dev;
    g->alive = 1;
    g->sm = ds->sm;
    g->id = fc_next_id();
    g->conv.dev = dev;
    g->conv.alive = 1;
    g->conv.id = fc_next_id();
    g->conv.owner = &d->primary;
    g->conv.green = g;
    fc_lock();
    if (fc_primary_retain_locked(d) != CUDA_SUCCESS) {
        fc_unlock();
        free(g);
        return CUDA_ERROR_OUT_OF_MEMORY; /* the primary context's own memory did not fit */
    }
    g->conv.life = d->primary.life;
    g->next_all = all_green;
    all_green = g;
    fc_unlock();
    fc_ctx_register(&g->conv);
    *phCtx = (CUgreenCtx)g;
    return CUDA_SUCCESS;
}

/* Releases the green context's reference on the primary context, unless a
 * cuDevicePrimaryCtxReset ended that reference already (the primary
 * context's life moved on).  Its CUcontext dies with it; one still current
 * on a thread is refused from then on, like any destroyed context. */
CUresult cuGreenCtxDestroy(CUgreenCtx hCtx)
{
    NEED_INIT();
    struct fc_green *g = (struct fc_green *)hCtx;
    fc_lock();
    if (!g || !green_known(g)) {
        fc_unlock();
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    if (!g->alive) {
        fc_unlock();
        return CUDA_ERROR_CONTEXT_IS_DESTROYED;
    }
    g->alive = 0;
    g->conv.alive = 0;
    struct fc_dev *d = &fc_devs[g->dev];
    if (d->primary.alive && d->primary.life == g->conv.life)
        fc_primary_release_locked(d);
    fc_unlock();
    return CUDA_SUCCESS;
}

CUresult cuCtxFromGreenCtx(CUcontext *pContext, CUgreenCtx hCtx)
{
    NEED_INIT();
    if (!pContext)
        return CUDA_ERROR_INVALID_VALUE;
    struct fc_green *g = (struct fc_green *)hCtx;
    fc_lock();
    int ok = fc_green_live(g) && fc_ctx_valid(&g->conv);
    fc_unlock();
    if (!ok)
        return CUDA_ERROR_INVALID_CONTEXT;
    *pContext = (CUcontext)&g->conv; /* the same handle each time */
    return CUDA_SUCCESS;
}

CUresult cuGreenCtxGetDevResource(CUgreenCtx hCtx, CUdevResource *resource, CUdevResourceType type)
{
    NEED_INIT();
    struct fc_green *g = (struct fc_green *)hCtx;
    fc_lock();
    int ok = fc_green_live(g);
    fc_unlock();
    if (!ok)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (!resource)
        return CUDA_ERROR_INVALID_VALUE;
    if (type != CU_DEV_RESOURCE_TYPE_SM)
        return CUDA_ERROR_INVALID_RESOURCE_TYPE;
    res_fill(resource, g->dev, g->sm, FC_SM_MIN, FC_SM_ALIGN, 0);
    return CUDA_SUCCESS;
}

/* A context's SMs: a green context's CUcontext has its green context's, any
 * other context the whole device's. */
CUresult cuCtxGetDevResource(CUcontext hCtx, CUdevResource *resource, CUdevResourceType type)
{
    NEED_INIT();
    struct fc_ctx *c = (struct fc_ctx *)hCtx;
    fc_lock();
    int ok = fc_ctx_valid(c);
    unsigned sm = ok && c->green ? c->green->sm : FC_SM_COUNT;
    fc_unlock();
    if (!ok)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (!resource)
        return CUDA_ERROR_INVALID_VALUE;
    if (type != CU_DEV_RESOURCE_TYPE_SM)
        return CUDA_ERROR_INVALID_RESOURCE_TYPE;
    res_fill(resource, c->dev, sm, FC_SM_MIN, FC_SM_ALIGN, 0);
    return CUDA_SUCCESS;
}

CUresult cuGreenCtxGetId(CUgreenCtx greenCtx, unsigned long long *greenCtxId)
{
    NEED_INIT();
    struct fc_green *g = (struct fc_green *)greenCtx;
    if (!g)
        g = fc_cur_green(); /* NULL: the current green context */
    if (!greenCtxId)
        return CUDA_ERROR_INVALID_VALUE;
    fc_lock();
    int known = g && green_known(g), ok = known && g->alive;
    fc_unlock();
    if (!ok)
        return known ? CUDA_ERROR_CONTEXT_IS_DESTROYED : CUDA_ERROR_INVALID_CONTEXT;
    *greenCtxId = g->id;
    return CUDA_SUCCESS;
}
