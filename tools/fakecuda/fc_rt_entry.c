/* cudaGetDriverEntryPoint[ByVersion]: forwarded to the driver's
 * cuGetProcAddress_v2 (the pointer the runtime got from dlsym), as the real
 * runtime does.  As documented, a symbol that is not found is a success with
 * *funcPtr = NULL and the reason in *driverStatus. */
#include "fc_rt.h"

static cudaError_t entry(const char *symbol, void **funcPtr, unsigned int ver, unsigned long long flags,
                         enum cudaDriverEntryPointQueryResult *driverStatus, int pt)
{
    ENTER_INIT();
    if (!symbol || !funcPtr)
        return fc_rt_set(cudaErrorInvalidValue);
    if (pt && !(flags & (cudaEnableLegacyStream | cudaEnablePerThreadDefaultStream)))
        flags |= cudaEnablePerThreadDefaultStream; /* the _ptsz build's default */
    CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult r = fc_drv.cuGetProcAddress_v2(symbol, funcPtr, (int)ver, (cuuint64_t)flags, &st);
    if (driverStatus)
        *driverStatus = (enum cudaDriverEntryPointQueryResult)st;
    if (r == CUDA_ERROR_NOT_FOUND) {
        *funcPtr = NULL;
        return cudaSuccess;
    }
    return fc_rt_cu(r);
}

cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr, unsigned long long flags,
                                    enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return entry(symbol, funcPtr, CUDART_VERSION, flags, driverStatus, 0);
}

cudaError_t cudaGetDriverEntryPoint_ptsz(const char *symbol, void **funcPtr, unsigned long long flags,
                                         enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return entry(symbol, funcPtr, CUDART_VERSION, flags, driverStatus, 1);
}

cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr, unsigned int cudaVersion,
                                             unsigned long long flags,
                                             enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return entry(symbol, funcPtr, cudaVersion, flags, driverStatus, 0);
}

cudaError_t cudaGetDriverEntryPointByVersion_ptsz(const char *symbol, void **funcPtr, unsigned int cudaVersion,
                                                  unsigned long long flags,
                                                  enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return entry(symbol, funcPtr, cudaVersion, flags, driverStatus, 1);
}
