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

FC_RT_FORWARD(cudaEventRecord, (cudaEvent_t event, cudaStream_t stream),
              cuEventRecord((CUevent)event, (CUstream)stream))

FC_RT_FORWARD(cudaEventRecord_ptsz, (cudaEvent_t event, cudaStream_t stream),
              cuEventRecord_ptsz((CUevent)event, (CUstream)stream))

FC_RT_FORWARD(cudaEventRecordWithFlags, (cudaEvent_t event, cudaStream_t stream, unsigned int flags),
              cuEventRecordWithFlags((CUevent)event, (CUstream)stream, flags))

FC_RT_FORWARD(cudaEventRecordWithFlags_ptsz, (cudaEvent_t event, cudaStream_t stream, unsigned int flags),
              cuEventRecordWithFlags_ptsz((CUevent)event, (CUstream)stream, flags))

/* cudaErrorNotReady is a status, not an error: never the last error. */
cudaError_t cudaEventQuery(cudaEvent_t event)
{
    ENTER();
    CUresult r = fc_drv.cuEventQuery((CUevent)event);
    return r == CUDA_ERROR_NOT_READY ? cudaErrorNotReady : fc_rt_cu(r);
}

FC_RT_FORWARD(cudaEventSynchronize, (cudaEvent_t event), cuEventSynchronize((CUevent)event))

FC_RT_FORWARD(cudaEventDestroy, (cudaEvent_t event), cuEventDestroy_v2((CUevent)event))

FC_RT_FORWARD(cudaEventElapsedTime, (float *ms, cudaEvent_t start, cudaEvent_t end),
              cuEventElapsedTime_v2(ms, (CUevent)start, (CUevent)end))

FC_RT_FORWARD(cudaStreamWaitEvent, (cudaStream_t stream, cudaEvent_t event, unsigned int flags),
              cuStreamWaitEvent((CUstream)stream, (CUevent)event, flags))

FC_RT_FORWARD(cudaStreamWaitEvent_ptsz, (cudaStream_t stream, cudaEvent_t event, unsigned int flags),
              cuStreamWaitEvent_ptsz((CUstream)stream, (CUevent)event, flags))

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority)
{
    ENTER();
    if (!pStream)
        return fc_rt_set(cudaErrorInvalidValue);
    return fc_rt_cu(fc_drv.cuStreamCreateWithPriority((CUstream *)pStream, flags, priority));
}

FC_RT_FORWARD(cudaStreamGetPriority, (cudaStream_t hStream, int *priority),
              cuStreamGetPriority((CUstream)hStream, priority))

FC_RT_FORWARD(cudaStreamGetPriority_ptsz, (cudaStream_t hStream, int *priority),
              cuStreamGetPriority_ptsz((CUstream)hStream, priority))

/* cudaStreamCallback_t and CUstreamCallback differ only in the names of
 * their types (cudaStream_t is CUstream, the codes share numbers). */
FC_RT_FORWARD(cudaStreamAddCallback, (cudaStream_t stream, cudaStreamCallback_t callback, void *userData, unsigned int flags),
              cuStreamAddCallback((CUstream)stream, (CUstreamCallback)callback, userData, flags))

FC_RT_FORWARD(cudaStreamAddCallback_ptsz, (cudaStream_t stream, cudaStreamCallback_t callback, void *userData, unsigned int flags),
              cuStreamAddCallback_ptsz((CUstream)stream, (CUstreamCallback)callback, userData, flags))

FC_RT_FORWARD(cudaLaunchHostFunc, (cudaStream_t stream, cudaHostFn_t fn, void *userData),
              cuLaunchHostFunc((CUstream)stream, (CUhostFn)fn, userData))

FC_RT_FORWARD(cudaLaunchHostFunc_ptsz, (cudaStream_t stream, cudaHostFn_t fn, void *userData),
              cuLaunchHostFunc_ptsz((CUstream)stream, (CUhostFn)fn, userData))

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
