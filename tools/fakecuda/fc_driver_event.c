/* Events, and the stream calls that take them or a host callback.  All work
 * runs at the call (fc_driver_stream.c), so an event is complete as soon as
 * it is recorded; recording stamps the monotonic clock, so elapsed times are
 * real host times (numba's event tests only ask that they are >= 0). */
#include "fc_internal.h"

#include <stdlib.h>
#include <time.h>

struct fc_event {
    struct fc_ctx *ctx;
    unsigned flags;
    int alive;
    int recorded;
    double ms;                 /* CLOCK_MONOTONIC at the last record */
    struct fc_event *next_all;
};

static struct fc_event *all_events; /* never freed: stale handles are refused */

static int event_ok(struct fc_event *e)
{
    for (struct fc_event *x = all_events; x; x = x->next_all)
        if (x == e)
            return e->alive;
    return 0;
}

CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
    struct fc_ctx *c;
    CUresult r = fc_cur_ctx(&c);
    if (r)
        return r;
    unsigned known = CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;
    if (!phEvent || (Flags & ~known))
        return CUDA_ERROR_INVALID_VALUE;
    /* CUDA: an interprocess event must also disable timing. */
    if ((Flags & CU_EVENT_INTERPROCESS) && !(Flags & CU_EVENT_DISABLE_TIMING))
        return CUDA_ERROR_INVALID_VALUE;
    struct fc_event *e = calloc(1, sizeof *e);
    if (!e)
        return CUDA_ERROR_OUT_OF_MEMORY;
    e->ctx = c;
    e->flags = Flags;
    e->alive = 1;
    fc_lock();
    e->next_all = all_events;
    all_events = e;
    fc_unlock();
    *phEvent = (CUevent)e;
    return CUDA_SUCCESS;
}

CUresult cuEventDestroy_v2(CUevent hEvent)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    fc_lock();
    struct fc_event *e = (struct fc_event *)hEvent;
    int ok = event_ok(e);
    if (ok)
        e->alive = 0;
    fc_unlock();
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuEventDestroy(CUevent hEvent) { return cuEventDestroy_v2(hEvent); }

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The stream must belong to the event's device (CUDA: "must be on the same
 * context"; the device is what can be checked for the default streams). */
static CUresult event_record(CUevent hEvent, CUstream hStream)
{
    int dev;
    CUresult r = fc_stream_dev(hStream, &dev);
    if (r)
        return r;
    fc_lock();
    struct fc_event *e = (struct fc_event *)hEvent;
    if (!event_ok(e))
        r = CUDA_ERROR_INVALID_HANDLE;
    else if (e->ctx->dev != dev)
        r = CUDA_ERROR_INVALID_CONTEXT;
    else {
        e->recorded = 1;
        e->ms = now_ms();
    }
    fc_unlock();
    return r;
}

CUresult cuEventRecord(CUevent hEvent, CUstream hStream) { return event_record(hEvent, hStream); }
CUresult cuEventRecord_ptsz(CUevent hEvent, CUstream hStream) { return event_record(hEvent, hStream); }

CUresult cuEventRecordWithFlags(CUevent hEvent, CUstream hStream, unsigned int flags)
{
    (void)flags;
    return event_record(hEvent, hStream);
}

CUresult cuEventRecordWithFlags_ptsz(CUevent hEvent, CUstream hStream, unsigned int flags)
{
    (void)flags;
    return event_record(hEvent, hStream);
}

/* Complete from the moment it is recorded, and "complete" before any record
 * too, as CUDA documents. */
static CUresult event_done(CUevent hEvent)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    fc_lock();
    int ok = event_ok((struct fc_event *)hEvent);
    fc_unlock();
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuEventQuery(CUevent hEvent) { return event_done(hEvent); }
CUresult cuEventSynchronize(CUevent hEvent) { return event_done(hEvent); }

static CUresult elapsed(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pMilliseconds)
        return CUDA_ERROR_INVALID_VALUE;
    struct fc_event *a = (struct fc_event *)hStart, *b = (struct fc_event *)hEnd;
    CUresult r = CUDA_SUCCESS;
    fc_lock();
    if (!event_ok(a) || !event_ok(b))
        r = CUDA_ERROR_INVALID_HANDLE;
    else if ((a->flags | b->flags) & CU_EVENT_DISABLE_TIMING)
        r = CUDA_ERROR_INVALID_HANDLE;   /* as documented for timing-disabled events */
    else if (!a->recorded || !b->recorded)
        r = CUDA_ERROR_INVALID_HANDLE;   /* documented: never recorded */
    else
        *pMilliseconds = (float)(b->ms - a->ms);
    fc_unlock();
    return r;
}

CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    return elapsed(pMilliseconds, hStart, hEnd);
}

CUresult cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    return elapsed(pMilliseconds, hStart, hEnd);
}

/* Work is never pending, so waiting on an event is only checked. */
static CUresult stream_wait(CUstream hStream, CUevent hEvent, unsigned Flags)
{
    int dev;
    CUresult r = fc_stream_dev(hStream, &dev);
    if (r)
        return r;
    if (Flags & ~(unsigned)CU_EVENT_WAIT_EXTERNAL)
        return CUDA_ERROR_INVALID_VALUE;
    return event_done(hEvent);
}

CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)
{
    return stream_wait(hStream, hEvent, Flags);
}

CUresult cuStreamWaitEvent_ptsz(CUstream hStream, CUevent hEvent, unsigned int Flags)
{
    return stream_wait(hStream, hEvent, Flags);
}

/* The callback runs at once, on the calling thread, with the stream's
 * status: what the stream "did" is already done.  (CUDA runs it on a driver
 * thread; no caller may rely on which.) */
static CUresult add_callback(CUstream hStream, CUstreamCallback callback, void *userData, unsigned flags)
{
    int dev;
    CUresult r = fc_stream_dev(hStream, &dev);
    if (r)
        return r;
    if (!callback || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    callback(hStream, CUDA_SUCCESS, userData);
    return CUDA_SUCCESS;
}

CUresult cuStreamAddCallback(CUstream hStream, CUstreamCallback callback, void *userData, unsigned int flags)
{
    return add_callback(hStream, callback, userData, flags);
}

CUresult cuStreamAddCallback_ptsz(CUstream hStream, CUstreamCallback callback, void *userData, unsigned int flags)
{
    return add_callback(hStream, callback, userData, flags);
}

/* Like a stream callback: the host function runs at once, on the calling
 * thread. */
static CUresult launch_host_func(CUstream hStream, CUhostFn fn, void *userData)
{
    int dev;
    CUresult r = fc_stream_dev(hStream, &dev);
    if (r)
        return r;
    if (!fn)
        return CUDA_ERROR_INVALID_VALUE;
    fn(userData);
    return CUDA_SUCCESS;
}

CUresult cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void *userData)
{
    return launch_host_func(hStream, fn, userData);
}

CUresult cuLaunchHostFunc_ptsz(CUstream hStream, CUhostFn fn, void *userData)
{
    return launch_host_func(hStream, fn, userData);
}
