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
    cudaError_t e = fc_rt_init();
    if (e)
        return fc_rt_set(e);
    *device = fc_rt_device();
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
    cudaError_t e = fc_rt_ctx();
    if (e)
        return e;
    return fc_rt_cu(fc_drv.cuCtxSynchronize());
}

/* Frees every allocation of this device's primary context (through
 * cuDevicePrimaryCtxReset, as the real runtime does). */
cudaError_t cudaDeviceReset(void)
{
    cudaError_t e = fc_rt_init();
    if (e)
        return fc_rt_set(e);
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
    cudaError_t e = fc_rt_ctx();
    if (e)
        return e;
    return fc_rt_cu(fc_drv.cuMemGetInfo_v2(free, total));
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
    cudaError_t e = fc_rt_ctx();
    if (e)
        return e;
    if (!pStream)
        return fc_rt_set(cudaErrorInvalidValue);
    return fc_rt_cu(fc_drv.cuStreamCreate((CUstream *)pStream, flags));
}

cudaError_t cudaStreamCreate(cudaStream_t *pStream) { return cudaStreamCreateWithFlags(pStream, 0); }

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    cudaError_t e = fc_rt_ctx();
    if (e)
        return e;
    return fc_rt_cu(fc_drv.cuStreamDestroy_v2((CUstream)stream));
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    cudaError_t e = fc_rt_ctx();
    if (e)
        return e;
    return fc_rt_cu(fc_drv.cuStreamSynchronize((CUstream)stream));
}

cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream)
{
    cudaError_t e = fc_rt_ctx();
    if (e)
        return e;
    return fc_rt_cu(fc_drv.cuStreamSynchronize_ptsz((CUstream)stream));
}

cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    cudaError_t e = fc_rt_ctx();
    if (e)
        return e;
    return fc_rt_cu(fc_drv.cuStreamQuery((CUstream)stream));
}

cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream)
{
    cudaError_t e = fc_rt_ctx();
    if (e)
        return e;
    return fc_rt_cu(fc_drv.cuStreamQuery_ptsz((CUstream)stream));
}
