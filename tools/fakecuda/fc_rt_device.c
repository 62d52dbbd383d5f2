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

FC_RT_FORWARD(cudaDeviceSynchronize, (void), cuCtxSynchronize())

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

FC_RT_FORWARD(cudaMemGetInfo, (size_t *free, size_t *total), cuMemGetInfo_v2(free, total))

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
    ENTER();
    if (!pStream)
        return fc_rt_set(cudaErrorInvalidValue);
    return fc_rt_cu(fc_drv.cuStreamCreate((CUstream *)pStream, flags));
}

cudaError_t cudaStreamCreate(cudaStream_t *pStream) { return cudaStreamCreateWithFlags(pStream, 0); }

FC_RT_FORWARD(cudaStreamDestroy, (cudaStream_t stream), cuStreamDestroy_v2((CUstream)stream))

FC_RT_FORWARD(cudaStreamSynchronize, (cudaStream_t stream), cuStreamSynchronize((CUstream)stream))

FC_RT_FORWARD(cudaStreamSynchronize_ptsz, (cudaStream_t stream), cuStreamSynchronize_ptsz((CUstream)stream))

FC_RT_FORWARD(cudaStreamQuery, (cudaStream_t stream), cuStreamQuery((CUstream)stream))

FC_RT_FORWARD(cudaStreamQuery_ptsz, (cudaStream_t stream), cuStreamQuery_ptsz((CUstream)stream))
