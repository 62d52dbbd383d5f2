/* Initialisation, devices and contexts.  The current context is per thread
 * (a small stack, as cuCtxPushCurrent/cuCtxPopCurrent need); context structs
 * are never freed, so a stale handle is recognised and refused, not crashed on. */
#include "fc_internal.h"
#include "fc_gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FC_STACK 64
static __thread struct fc_ctx *tls_stack[FC_STACK];
static __thread int tls_depth;
static struct fc_ctx *all_ctx; /* user-created contexts, under fc_lock */

static struct fc_ctx *tls_top(void) { return tls_depth ? tls_stack[tls_depth - 1] : NULL; }

/* A green context's CUcontext lives while its green context does and the
 * primary context it retained is still in that life (a reset ends it). */
static int alive(const struct fc_ctx *c)
{
    return c->alive && (!c->owner || (c->owner->alive && c->owner->life == c->life));
}

int fc_ctx_valid(struct fc_ctx *c)
{
    if (!c)
        return 0;
    for (int i = 0; i < fc_ndev; i++)
        if (c == &fc_devs[i].primary)
            return c->alive;
    for (struct fc_ctx *x = all_ctx; x; x = x->next_all)
        if (x == c)
            return alive(c);
    return 0;
}

void fc_ctx_register(struct fc_ctx *c)
{
    fc_lock();
    c->next_all = all_ctx;
    all_ctx = c;
    fc_unlock();
}

struct fc_green *fc_cur_green(void)
{
    struct fc_ctx *c = tls_top();
    return c ? c->green : NULL;
}

static int ctx_known(struct fc_ctx *c)
{
    for (int i = 0; i < fc_ndev; i++)
        if (c == &fc_devs[i].primary)
            return 1;
    for (struct fc_ctx *x = all_ctx; x; x = x->next_all)
        if (x == c)
            return 1;
    return 0;
}

CUresult fc_cur_ctx(struct fc_ctx **out)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    struct fc_ctx *c = tls_top();
    fc_lock();
    int ok = fc_ctx_valid(c);
    fc_unlock();
    if (!ok)
        return CUDA_ERROR_INVALID_CONTEXT;
    /* What is made in a green context's CUcontext belongs to the primary
     * context ("a normal primary context but with the resources of the
     * green context", cuCtxFromGreenCtx): it goes with the primary's reset. */
    *out = c->owner ? c->owner : c;
    return CUDA_SUCCESS;
}

/* Frees and unregistrations name their memory by address, and under unified
 * addressing the address says its context: the driver accepts them with no
 * context current (numba frees its pending deallocations after popping every
 * context).  A current context that was destroyed is still refused. */
CUresult fc_release_ctx_check(void)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    struct fc_ctx *c = tls_top();
    if (!c)
        return CUDA_SUCCESS;
    fc_lock();
    int ok = fc_ctx_valid(c);
    fc_unlock();
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

#define NEED_INIT() do { if (!fc_initialized()) return CUDA_ERROR_NOT_INITIALIZED; } while (0)

CUresult cuInit(unsigned int Flags)
{
    if (Flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    return fc_do_init();
}

CUresult cuDriverGetVersion(int *driverVersion)
{
    if (!driverVersion)
        return CUDA_ERROR_INVALID_VALUE;
    *driverVersion = FC_DRIVER_VERSION;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
    NEED_INIT();
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    if (ordinal < 0 || ordinal >= fc_ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    *device = ordinal;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int *count)
{
    NEED_INIT();
    if (!count)
        return CUDA_ERROR_INVALID_VALUE;
    *count = fc_ndev;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    NEED_INIT();
    if (!name || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (!fc_dev_get(dev))
        return CUDA_ERROR_INVALID_DEVICE;
    const struct fc_gpu *gpu = fc_gpu_profile();
    if (gpu)
        snprintf(name, (size_t)len, "%s", gpu->name);
    else
        snprintf(name, (size_t)len, "fakecuda device %d", dev);
    return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    NEED_INIT();
    if (!bytes)
        return CUDA_ERROR_INVALID_VALUE;
    struct fc_dev *d = fc_dev_get(dev);
    if (!d)
        return CUDA_ERROR_INVALID_DEVICE;
    *bytes = d->total;
    return CUDA_SUCCESS;
}

CUresult cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev)
{
    NEED_INIT();
    if (!canAccessPeer)
        return CUDA_ERROR_INVALID_VALUE;
    if (!fc_dev_get(dev) || !fc_dev_get(peerDev))
        return CUDA_ERROR_INVALID_DEVICE;
    *canAccessPeer = dev != peerDev;
    return CUDA_SUCCESS;
}

/* ---- user contexts ---------------------------------------------------- */

static CUresult ctx_create(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    NEED_INIT();
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    if (!fc_dev_get(dev))
        return CUDA_ERROR_INVALID_DEVICE;
    if (tls_depth >= FC_STACK)
        return CUDA_ERROR_OUT_OF_MEMORY;
    struct fc_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return CUDA_ERROR_OUT_OF_MEMORY;
    c->dev = dev;
    c->alive = 1;
    c->flags = flags;
    c->id = fc_next_id();
    fc_lock();
    if (fc_ctx_charge(c) != 0) {
        fc_unlock();
        free(c);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    c->next_all = all_ctx;
    all_ctx = c;
    fc_unlock();
    tls_stack[tls_depth++] = c; /* the new context becomes current */
    *pctx = (CUcontext)c;
    return CUDA_SUCCESS;
}

CUresult cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    return ctx_create(pctx, flags, dev);
}

CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    return ctx_create(pctx, flags, dev);
}

CUresult cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray, int numParams,
                        unsigned int flags, CUdevice dev)
{
    (void)paramsArray;
    (void)numParams;
    return ctx_create(pctx, flags, dev);
}

CUresult cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *ctxCreateParams, unsigned int flags,
                        CUdevice dev)
{
    (void)ctxCreateParams;
    return ctx_create(pctx, flags, dev);
}

CUresult cuCtxDestroy_v2(CUcontext ctx)
{
    NEED_INIT();
    struct fc_ctx *c = (struct fc_ctx *)ctx;
    fc_lock();
    if (!c || !ctx_known(c) || !c->alive || c->primary || c->owner) {
        fc_unlock();
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    c->alive = 0;
    fc_ctx_release_memory(c);
    fc_ctx_uncharge(c);
    fc_unlock();
    /* A destroyed context that is current here is popped off this thread. */
    if (tls_top() == c)
        tls_depth--;
    return CUDA_SUCCESS;
}

CUresult cuCtxDestroy(CUcontext ctx) { return cuCtxDestroy_v2(ctx); }

/* The deprecated usage count: cuCtxAttach adds a usage of the current
 * context, cuCtxDetach of the current context drops one, and the last
 * (creation's) destroys it like cuCtxDestroy. */
CUresult cuCtxAttach(CUcontext *pctx, unsigned int flags)
{
    NEED_INIT();
    if (!pctx || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    struct fc_ctx *c = tls_top();
    fc_lock();
    int ok = c && fc_ctx_valid(c) && !c->primary && !c->owner;
    if (ok)
        c->attached++;
    fc_unlock();
    if (!ok)
        return CUDA_ERROR_INVALID_CONTEXT;
    *pctx = (CUcontext)c;
    return CUDA_SUCCESS;
}

CUresult cuCtxDetach(CUcontext ctx)
{
    NEED_INIT();
    struct fc_ctx *c = (struct fc_ctx *)ctx;
    if (!c || tls_top() != c)
        return CUDA_ERROR_INVALID_CONTEXT;
    fc_lock();
    int ok = ctx_known(c) && c->alive && !c->primary && !c->owner;
    int last = ok && c->attached == 0;
    if (ok && !last)
        c->attached--;
    fc_unlock();
    if (!ok)
        return CUDA_ERROR_INVALID_CONTEXT;
    return last ? cuCtxDestroy_v2(ctx) : CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext ctx)
{
    NEED_INIT();
    struct fc_ctx *c = (struct fc_ctx *)ctx;
    if (c) {
        fc_lock();
        int ok = fc_ctx_valid(c);
        fc_unlock();
        if (!ok)
            return CUDA_ERROR_INVALID_CONTEXT;
    }
    if (!c) { /* unbind the top of the stack */
        if (tls_depth)
            tls_depth--;
    } else if (tls_depth) {
        tls_stack[tls_depth - 1] = c;
    } else {
        tls_stack[tls_depth++] = c;
    }
    return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext *pctx)
{
    NEED_INIT();
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    *pctx = (CUcontext)tls_top();
    return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent_v2(CUcontext ctx)
{
    NEED_INIT();
    struct fc_ctx *c = (struct fc_ctx *)ctx;
    fc_lock();
    int ok = fc_ctx_valid(c);
    fc_unlock();
    if (!ok)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (tls_depth >= FC_STACK)
        return CUDA_ERROR_INVALID_VALUE;
    tls_stack[tls_depth++] = c;
    return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent(CUcontext ctx) { return cuCtxPushCurrent_v2(ctx); }

CUresult cuCtxPopCurrent_v2(CUcontext *pctx)
{
    NEED_INIT();
    if (!tls_depth)
        return CUDA_ERROR_INVALID_CONTEXT;
    struct fc_ctx *c = tls_stack[--tls_depth];
    if (pctx)
        *pctx = (CUcontext)c;
    return CUDA_SUCCESS;
}

CUresult cuCtxPopCurrent(CUcontext *pctx) { return cuCtxPopCurrent_v2(pctx); }

CUresult cuCtxGetDevice(CUdevice *device)
{
    struct fc_ctx *c;
    CUresult r = fc_cur_ctx(&c);
    if (r)
        return r;
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    *device = c->dev;
    return CUDA_SUCCESS;
}

/* CUDA 13.0's ABIs that name the context (NULL: the current one). */
CUresult cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx)
{
    if (!ctx)
        return cuCtxGetDevice(device);
    NEED_INIT();
    struct fc_ctx *c = (struct fc_ctx *)ctx;
    fc_lock();
    int ok = fc_ctx_valid(c);
    fc_unlock();
    if (!ok)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    *device = c->dev;
    return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize_v2(CUcontext ctx)
{
    CUdevice dev;
    CUresult r = cuCtxGetDevice_v2(&dev, ctx);
    if (r)
        return r;
    fc_pool_sync_locking(dev);
    return CUDA_SUCCESS;
}

CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int *version)
{
    NEED_INIT();
    if (!version)
        return CUDA_ERROR_INVALID_VALUE;
    struct fc_ctx *c = ctx ? (struct fc_ctx *)ctx : tls_top();
    fc_lock();
    int ok = c && fc_ctx_valid(c);
    fc_unlock();
    if (!ok)
        return CUDA_ERROR_INVALID_CONTEXT;
    *version = 3020;
    return CUDA_SUCCESS;
}

/* Work is synchronous here; what a sync does observably is let the stream
 * ordered pools release memory above their threshold. */
CUresult cuCtxSynchronize(void)
{
    struct fc_ctx *c;
    CUresult r = fc_cur_ctx(&c);
    if (r)
        return r;
    fc_pool_sync_locking(c->dev);
    return CUDA_SUCCESS;
}

/* ---- primary contexts -------------------------------------------------- */

CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    NEED_INIT();
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    struct fc_dev *d = fc_dev_get(dev);
    if (!d)
        return CUDA_ERROR_INVALID_DEVICE;
    fc_lock();
    CUresult r = fc_primary_retain_locked(d);
    fc_unlock();
    if (r != CUDA_SUCCESS)
        return r;
    *pctx = (CUcontext)&d->primary;
    return CUDA_SUCCESS;
}

/* The first reference makes the context, and charges its own memory. */
CUresult fc_primary_retain_locked(struct fc_dev *d)
{
    if (d->primary.refs == 0 && fc_ctx_charge(&d->primary) != 0)
        return CUDA_ERROR_OUT_OF_MEMORY; /* the context's own memory did not fit */
    d->primary.refs++;
    d->primary.alive = 1;
    return CUDA_SUCCESS;
}

/* Releasing the last reference destroys the primary context's resources,
 * as the real driver does; the handle stays the same for the next retain.
 * A green context's destruction releases its reference through this too. */
CUresult fc_primary_release_locked(struct fc_dev *d)
{
    if (d->primary.refs == 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (--d->primary.refs == 0) {
        fc_ctx_release_memory(&d->primary);
        fc_ctx_uncharge(&d->primary);
        d->primary.alive = 0;
        d->primary.life++;
    }
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    NEED_INIT();
    struct fc_dev *d = fc_dev_get(dev);
    if (!d)
        return CUDA_ERROR_INVALID_DEVICE;
    fc_lock();
    CUresult r = fc_primary_release_locked(d);
    fc_unlock();
    return r;
}

CUresult cuDevicePrimaryCtxRelease(CUdevice dev) { return cuDevicePrimaryCtxRelease_v2(dev); }

CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
    NEED_INIT();
    struct fc_dev *d = fc_dev_get(dev);
    if (!d)
        return CUDA_ERROR_INVALID_DEVICE;
    fc_lock();
    fc_ctx_release_memory(&d->primary);
    fc_ctx_uncharge(&d->primary);
    d->primary.refs = 0;
    d->primary.alive = 0;
    d->primary.flags = 0;
    d->primary.life++; /* green contexts' references went with it */
    fc_unlock();
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxReset(CUdevice dev) { return cuDevicePrimaryCtxReset_v2(dev); }

CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)
{
    NEED_INIT();
    struct fc_dev *d = fc_dev_get(dev);
    if (!d)
        return CUDA_ERROR_INVALID_DEVICE;
    if (!flags || !active)
        return CUDA_ERROR_INVALID_VALUE;
    fc_lock();
    *flags = d->primary.flags;
    *active = d->primary.refs > 0;
    fc_unlock();
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags)
{
    NEED_INIT();
    struct fc_dev *d = fc_dev_get(dev);
    if (!d)
        return CUDA_ERROR_INVALID_DEVICE;
    fc_lock();
    d->primary.flags = flags;
    fc_unlock();
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags)
{
    return cuDevicePrimaryCtxSetFlags_v2(dev, flags);
}
