/* Runtime: memory shared between processes -- IPC handles and memory-pool
 * export/import -- each one call of the driver function the real runtime
 * uses (cudaIpcOpenMemHandle -> cuIpcOpenMemHandle_v2, ...). */
#include "fc_rt.h"

#include <stdint.h>
#include <string.h>

_Static_assert(sizeof(cudaIpcMemHandle_t) == sizeof(CUipcMemHandle), "same handle layout");
_Static_assert(sizeof(struct cudaMemPoolPtrExportData) == sizeof(CUmemPoolPtrExportData),
               "same export data layout");

cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *handle, void *devPtr)
{
    ENTER();
    if (!handle)
        return fc_rt_set(cudaErrorInvalidValue);
    return fc_rt_cu(fc_drv.cuIpcGetMemHandle((CUipcMemHandle *)handle, (CUdeviceptr)(uintptr_t)devPtr));
}

cudaError_t cudaIpcOpenMemHandle(void **devPtr, cudaIpcMemHandle_t handle, unsigned int flags)
{
    ENTER();
    if (!devPtr)
        return fc_rt_set(cudaErrorInvalidValue);
    CUipcMemHandle h;
    memcpy(&h, &handle, sizeof h);
    CUdeviceptr d;
    CUresult r = fc_drv.cuIpcOpenMemHandle_v2(&d, h, flags);
    if (r == CUDA_SUCCESS)
        *devPtr = (void *)(uintptr_t)d;
    return fc_rt_cu(r);
}

FC_RT_FORWARD(cudaIpcCloseMemHandle, (void *devPtr), cuIpcCloseMemHandle((CUdeviceptr)(uintptr_t)devPtr))

/* cudaMemAllocationHandleType and CUmemAllocationHandleType share their
 * values. */
cudaError_t cudaMemPoolExportToShareableHandle(void *shareableHandle, cudaMemPool_t memPool,
                                               enum cudaMemAllocationHandleType handleType, unsigned int flags)
{
    ENTER();
    return fc_rt_cu(fc_drv.cuMemPoolExportToShareableHandle(shareableHandle, (CUmemoryPool)memPool,
                                                            (CUmemAllocationHandleType)handleType, flags));
}

cudaError_t cudaMemPoolImportFromShareableHandle(cudaMemPool_t *memPool, void *shareableHandle,
                                                 enum cudaMemAllocationHandleType handleType, unsigned int flags)
{
    ENTER();
    return fc_rt_cu(fc_drv.cuMemPoolImportFromShareableHandle((CUmemoryPool *)memPool, shareableHandle,
                                                              (CUmemAllocationHandleType)handleType, flags));
}

cudaError_t cudaMemPoolExportPointer(struct cudaMemPoolPtrExportData *exportData, void *ptr)
{
    ENTER();
    return fc_rt_cu(fc_drv.cuMemPoolExportPointer((CUmemPoolPtrExportData *)exportData,
                                                  (CUdeviceptr)(uintptr_t)ptr));
}

/* Freed with cudaFree or cudaFreeAsync, as documented. */
cudaError_t cudaMemPoolImportPointer(void **ptr, cudaMemPool_t memPool, struct cudaMemPoolPtrExportData *exportData)
{
    ENTER();
    if (!ptr)
        return fc_rt_set(cudaErrorInvalidValue);
    CUdeviceptr d;
    CUresult r = fc_drv.cuMemPoolImportPointer(&d, (CUmemoryPool)memPool, (CUmemPoolPtrExportData *)exportData);
    if (r == CUDA_SUCCESS)
        *ptr = (void *)(uintptr_t)d;
    return fc_rt_cu(r);
}
