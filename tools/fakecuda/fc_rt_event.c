/* Runtime: events, stream priorities, waits, callbacks and host functions;
 * each one driver call, as in NVIDIA's runtime.  Everything a stream does
 * is done at the call (fakecuda runs no work later), so events complete
 * once recorded and callbacks run on the calling thread. */
#include "fc_rt.h"

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    ENTER();
    if (!event)
        return fc_rt_set(cudaErrorInvalidValue);
    /* cudaEvent* flags and CU_EVENT_* share their bits. */
    return fc_rt_cu(fc_drv.cuEventCreate((CUevent *)event, flags));
}

cudaError_t cudaEventCreate(cudaEvent_t *event) { return cudaEventCreateWithFlags(event, cudaEventDefault); }

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    ENTER();
    return fc_rt_cu(fc_drv.cuEventRecord((CUevent)event, (CUstream)stream));
}

cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream)
{
    ENTER();
    return fc_rt_cu(fc_drv.cuEventRecord_ptsz((CUevent)event, (CUstream)stream));
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags)
{
    ENTER();
    return fc_rt_cu(fc_drv.cuEventRecordWithFlags((CUevent)event, (CUstream)stream, flags));
}

cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t stream, unsigned int flags)
{
    ENTER();
    return fc_rt_cu(fc_drv.cuEventRecordWithFlags_ptsz((CUevent)event, (CUstream)stream, flags));
}

/* cudaErrorNotReady is a status, not an error: never the last error. */
cudaError_t cudaEventQuery(cudaEvent_t event)
{
    ENTER();
    CUresult r = fc_drv.cuEventQuery((CUevent)event);
    return r == CUDA_ERROR_NOT_READY ? cudaErrorNotReady : fc_rt_cu(r);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    ENTER();
    return fc_rt_cu(fc_drv.cuEventSynchronize((CUevent)event));
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    ENTER();
    return fc_rt_cu(fc_drv.cuEventDestroy_v2((CUevent)event));
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    ENTER();
    return fc_rt_cu(fc_drv.cuEventElapsedTime_v2(ms, (CUevent)start, (CUevent)end));
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    ENTER();
    return fc_rt_cu(fc_drv.cuStreamWaitEvent((CUstream)stream, (CUevent)event, flags));
}

cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    ENTER();
    return fc_rt_cu(fc_drv.cuStreamWaitEvent_ptsz((CUstream)stream, (CUevent)event, flags));
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority)
{
    ENTER();
    if (!pStream)
        return fc_rt_set(cudaErrorInvalidValue);
    return fc_rt_cu(fc_drv.cuStreamCreateWithPriority((CUstream *)pStream, flags, priority));
}

cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority)
{
    ENTER();
    return fc_rt_cu(fc_drv.cuStreamGetPriority((CUstream)hStream, priority));
}

cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t hStream, int *priority)
{
    ENTER();
    return fc_rt_cu(fc_drv.cuStreamGetPriority_ptsz((CUstream)hStream, priority));
}

/* cudaStreamCallback_t and CUstreamCallback differ only in the names of
 * their types (cudaStream_t is CUstream, the codes share numbers). */
cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void *userData,
                                  unsigned int flags)
{
    ENTER();
    return fc_rt_cu(fc_drv.cuStreamAddCallback((CUstream)stream, (CUstreamCallback)callback, userData, flags));
}

cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream, cudaStreamCallback_t callback, void *userData,
                                       unsigned int flags)
{
    ENTER();
    return fc_rt_cu(fc_drv.cuStreamAddCallback_ptsz((CUstream)stream, (CUstreamCallback)callback, userData, flags));
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
    ENTER();
    return fc_rt_cu(fc_drv.cuLaunchHostFunc((CUstream)stream, (CUhostFn)fn, userData));
}

cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
    ENTER();
    return fc_rt_cu(fc_drv.cuLaunchHostFunc_ptsz((CUstream)stream, (CUhostFn)fn, userData));
}

/* Capture modes are accepted, not enforced (README): the exchange itself is
 * the thread's own, as documented. */
static __thread enum cudaStreamCaptureMode capture_mode = cudaStreamCaptureModeGlobal;

cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode)
{
    if (!mode || (unsigned)*mode > cudaStreamCaptureModeRelaxed)
        return fc_rt_set(cudaErrorInvalidValue);
    enum cudaStreamCaptureMode old = capture_mode;
    capture_mode = *mode;
    *mode = old;
    return cudaSuccess;
}
