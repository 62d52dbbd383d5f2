/* Streams.  All work is executed synchronously at the call, so a stream is
 * only a handle bound to a context; synchronising one is the point where the
 * stream-ordered pools of its device trim down to their release thresholds. */
#include "fc_internal.h"

#include <stdlib.h>

struct fc_stream {
    struct fc_ctx *ctx;
    unsigned flags;
    int priority; /* within [FC_PRIORITY_GREATEST, 0] */
    int alive;
    unsigned long long id;
    struct fc_graph *capture;  /* the graph being captured into, if any */
    struct fc_green *green;    /* made in (or for) a green context */
    struct fc_stream *next_all;
};

static struct fc_stream *all_streams; /* never freed: stale handles are refused */

static int stream_known(struct fc_stream *s)
{
    for (struct fc_stream *x = all_streams; x; x = x->next_all)
        if (x == s)
            return 1;
    return 0;
}

/* A per-thread default stream's capture (fc_driver_capture.c). */
static __thread struct fc_graph *pt_capture;

struct fc_graph **fc_stream_capture_slot(CUstream hs, int per_thread)
{
    if (hs == CU_STREAM_PER_THREAD || (hs == NULL && per_thread))
        return &pt_capture;
    if (hs == NULL || hs == CU_STREAM_LEGACY)
        return NULL;
    struct fc_stream *s = (struct fc_stream *)hs;
    return stream_known(s) && s->alive ? &s->capture : NULL;
}

/* NULL, CU_STREAM_LEGACY and CU_STREAM_PER_THREAD mean "the current
 * context's default stream". */
CUresult fc_stream_dev(CUstream hs, int *dev)
{
    struct fc_ctx *c;
    CUresult r = fc_cur_ctx(&c);
    if (hs == NULL || hs == CU_STREAM_LEGACY || hs == CU_STREAM_PER_THREAD) {
        if (r)
            return r;
        *dev = c->dev;
        return CUDA_SUCCESS;
    }
    if (r == CUDA_ERROR_NOT_INITIALIZED)
        return r;
    struct fc_stream *s = (struct fc_stream *)hs;
    fc_lock();
    int ok = stream_known(s) && s->alive && fc_ctx_valid(s->ctx);
    /* cuGreenCtxDestroy: "any subsequent API calls involving these streams
     * ... will return CUDA_ERROR_CONTEXT_IS_DESTROYED" */
    int gone = ok && s->green && !fc_green_live(s->green);
    if (ok)
        *dev = s->ctx->dev;
    fc_unlock();
    return gone ? CUDA_ERROR_CONTEXT_IS_DESTROYED : ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuStreamGetDevice(CUstream hStream, CUdevice *device)
{
    int dev;
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = fc_stream_dev(hStream, &dev);
    if (r == CUDA_SUCCESS)
        *device = dev;
    return r;
}

CUresult cuStreamGetDevice_ptsz(CUstream hStream, CUdevice *device) { return cuStreamGetDevice(hStream, device); }

static CUresult stream_new(CUstream *phStream, struct fc_ctx *c, unsigned Flags, struct fc_green *g)
{
    struct fc_stream *s = calloc(1, sizeof *s);
    if (!s)
        return CUDA_ERROR_OUT_OF_MEMORY;
    s->ctx = c;
    s->green = g;
    s->flags = Flags;
    s->alive = 1;
    s->id = fc_next_id();
    fc_lock();
    s->next_all = all_streams;
    all_streams = s;
    fc_unlock();
    *phStream = (CUstream)s;
    return CUDA_SUCCESS;
}

CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
    struct fc_ctx *c;
    CUresult r = fc_cur_ctx(&c);
    if (r)
        return r;
    if (!phStream || (Flags & ~(unsigned)CU_STREAM_NON_BLOCKING))
        return CUDA_ERROR_INVALID_VALUE;
    return stream_new(phStream, c, Flags, fc_cur_green());
}

/* A stream of a green context, whatever is current; CU_STREAM_NON_BLOCKING
 * "must be specified". */
CUresult cuGreenCtxStreamCreate(CUstream *phStream, CUgreenCtx greenCtx, unsigned int flags, int priority)
{
    (void)priority;
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    struct fc_green *g = (struct fc_green *)greenCtx;
    fc_lock();
    struct fc_ctx *c = fc_green_primary(g);
    int ok = c && fc_ctx_valid(c);
    fc_unlock();
    if (!ok)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (!phStream || flags != CU_STREAM_NON_BLOCKING)
        return CUDA_ERROR_INVALID_VALUE;
    return stream_new(phStream, c, flags, g);
}

/* The green context a stream was made in; for the default streams, the
 * current context's; NULL when none. */
CUresult cuStreamGetGreenCtx(CUstream hStream, CUgreenCtx *phCtx)
{
    struct fc_ctx *c;
    CUresult r = fc_cur_ctx(&c);
    if (r == CUDA_ERROR_NOT_INITIALIZED)
        return r;
    if (!phCtx)
        return CUDA_ERROR_INVALID_VALUE;
    if (hStream == NULL || hStream == CU_STREAM_LEGACY || hStream == CU_STREAM_PER_THREAD) {
        if (r)
            return r;
        *phCtx = (CUgreenCtx)fc_cur_green();
        return CUDA_SUCCESS;
    }
    struct fc_stream *s = (struct fc_stream *)hStream;
    fc_lock();
    int ok = stream_known(s) && s->alive;
    struct fc_green *g = ok ? s->green : NULL;
    fc_unlock();
    if (!ok)
        return CUDA_ERROR_INVALID_HANDLE;
    *phCtx = (CUgreenCtx)g;
    return CUDA_SUCCESS;
}

/* An H100's range: 0 (least) to -5 (greatest); lower numbers are higher
 * priorities, and a priority outside the range is clamped to it, as
 * documented. */
#define FC_PRIORITY_GREATEST (-5)

CUresult cuCtxGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    struct fc_ctx *c;
    CUresult r = fc_cur_ctx(&c);
    if (r)
        return r;
    if (leastPriority)
        *leastPriority = 0;
    if (greatestPriority)
        *greatestPriority = FC_PRIORITY_GREATEST;
    return CUDA_SUCCESS;
}

CUresult cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags, int priority)
{
    CUresult r = cuStreamCreate(phStream, flags);
    if (r == CUDA_SUCCESS) {
        struct fc_stream *s = (struct fc_stream *)*phStream;
        s->priority = priority > 0 ? 0 : priority < FC_PRIORITY_GREATEST ? FC_PRIORITY_GREATEST : priority;
    }
    return r;
}

/* The default streams have priority 0. */
static CUresult stream_priority(CUstream hStream, int *priority)
{
    int dev;
    CUresult r = fc_stream_dev(hStream, &dev);
    if (r)
        return r;
    if (!priority)
        return CUDA_ERROR_INVALID_VALUE;
    *priority = 0;
    if (hStream != NULL && hStream != CU_STREAM_LEGACY && hStream != CU_STREAM_PER_THREAD) {
        fc_lock();
        *priority = ((struct fc_stream *)hStream)->priority;
        fc_unlock();
    }
    return CUDA_SUCCESS;
}

CUresult cuStreamGetPriority(CUstream hStream, int *priority) { return stream_priority(hStream, priority); }
CUresult cuStreamGetPriority_ptsz(CUstream hStream, int *priority) { return stream_priority(hStream, priority); }

CUresult cuStreamDestroy_v2(CUstream hStream)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    struct fc_stream *s = (struct fc_stream *)hStream;
    fc_lock();
    int ok = s && stream_known(s) && s->alive;
    int gone = ok && s->green && !fc_green_live(s->green);
    if (ok && !gone) {
        s->alive = 0;
        fc_pool_sync_device(s->ctx->dev);
    }
    fc_unlock();
    return gone ? CUDA_ERROR_CONTEXT_IS_DESTROYED : ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuStreamDestroy(CUstream hStream) { return cuStreamDestroy_v2(hStream); }

static CUresult stream_sync(CUstream hStream)
{
    int dev;
    CUresult r = fc_stream_dev(hStream, &dev);
    if (r)
        return r;
    fc_pool_sync_locking(dev);
    return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream hStream) { return stream_sync(hStream); }
CUresult cuStreamSynchronize_ptsz(CUstream hStream) { return stream_sync(hStream); }

static CUresult stream_query(CUstream hStream)
{
    int dev;
    return fc_stream_dev(hStream, &dev);
}

CUresult cuStreamQuery(CUstream hStream) { return stream_query(hStream); }
CUresult cuStreamQuery_ptsz(CUstream hStream) { return stream_query(hStream); }
