/* Runtime: devices, versions, synchronisation, streams. */
#include "fc_rt.h"

cudaError_t cudaGetDeviceCount(int *count)
{
    if (!count)
        return fc_rt_set(cudaErrorInvalidValue);
    cudaError_t e = fc_rt_init();
    if (e) {
        *count = 0;
        return fc_rt_set(e);
    }
    return fc_rt_cu(fc_drv.cuDeviceGetCount(count));
}

cudaError_t cudaSetDevice(int device) { return fc_rt_set_device(device); }

cudaError_t cudaGetDevice(int *device)
{
    if (!device)
        return fc_rt_set(cudaErrorInvalidValue);
    ENTER_INIT();
    *device = fc_rt_device();
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
    ENTER();
    return fc_rt_cu(fc_drv.cuCtxSynchronize());
}

/* Frees every allocation of this device's primary context (through
 * cuDevicePrimaryCtxReset, as the real runtime does). */
cudaError_t cudaDeviceReset(void)
{
    ENTER_INIT();
    return fc_rt_reset_device(fc_rt_device());
}

cudaError_t cudaRuntimeGetVersion(int *runtimeVersion)
{
    if (!runtimeVersion)
        return fc_rt_set(cudaErrorInvalidValue);
    *runtimeVersion = CUDART_VERSION;
    return cudaSuccess;
}

/* Like the real one: 0 and success when there is no driver at all. */
cudaError_t cudaDriverGetVersion(int *driverVersion)
{
    if (!driverVersion)
        return fc_rt_set(cudaErrorInvalidValue);
    *driverVersion = 0;
    if (fc_rt_init() == cudaErrorInsufficientDriver)
        return cudaSuccess;
    return fc_rt_cu(fc_drv.cuDriverGetVersion(driverVersion));
}

cudaError_t cudaMemGetInfo(size_t *free, size_t *total)
{
    ENTER();
    return fc_rt_cu(fc_drv.cuMemGetInfo_v2(free, total));
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
    ENTER();
    if (!pStream)
        return fc_rt_set(cudaErrorInvalidValue);
    return fc_rt_cu(fc_drv.cuStreamCreate((CUstream *)pStream, flags));
}

cudaError_t cudaStreamCreate(cudaStream_t *pStream) { return cudaStreamCreateWithFlags(pStream, 0); }

/* Stream calls that are the driver's own once a context is current:
 * X(runtime function, driver call).  cuda_runtime_api.h's prototypes check
 * each definition. */
#define FC_RT_STREAM_CALLS(X)                                                  \
    X(cudaStreamDestroy, cuStreamDestroy_v2)                                   \
    X(cudaStreamSynchronize, cuStreamSynchronize)                              \
    X(cudaStreamSynchronize_ptsz, cuStreamSynchronize_ptsz)                    \
    X(cudaStreamQuery, cuStreamQuery)                                          \
    X(cudaStreamQuery_ptsz, cuStreamQuery_ptsz)

#define FC_STREAM_CALL(rt, drv)                                                \
    cudaError_t rt(cudaStream_t stream)                                        \
    {                                                                          \
        ENTER();                                                               \
        return fc_rt_cu(fc_drv.drv((CUstream)stream));                         \
    }
FC_RT_STREAM_CALLS(FC_STREAM_CALL)
#undef FC_STREAM_CALL
