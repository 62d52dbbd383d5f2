/* Runtime: stream-ordered allocation and memory pools, over the driver's
 * cuMemAllocAsync / cuMemFreeAsync / cuMemPool* (the _ptsz entry points use
 * the per-thread-default-stream driver variants). */
#include "fc_rt.h"

#include <stdint.h>
#include <string.h>

static cudaError_t malloc_async(void **devPtr, size_t size, cudaMemPool_t pool, cudaStream_t st, int pt)
{
    ENTER();
    if (!devPtr)
        return fc_rt_set(cudaErrorInvalidValue);
    if (size == 0) {
        *devPtr = NULL;
        return cudaSuccess;
    }
    CUdeviceptr d;
    CUresult r;
    if (pool)
        r = pt ? fc_drv.cuMemAllocFromPoolAsync_ptsz(&d, size, (CUmemoryPool)pool, (CUstream)st)
               : fc_drv.cuMemAllocFromPoolAsync(&d, size, (CUmemoryPool)pool, (CUstream)st);
    else
        r = pt ? fc_drv.cuMemAllocAsync_ptsz(&d, size, (CUstream)st) : fc_drv.cuMemAllocAsync(&d, size, (CUstream)st);
    if (r == CUDA_SUCCESS)
        *devPtr = (void *)(uintptr_t)d;
    return fc_rt_cu(r);
}

cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream)
{
    return malloc_async(devPtr, size, NULL, hStream, 0);
}

cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size, cudaStream_t hStream)
{
    return malloc_async(devPtr, size, NULL, hStream, 1);
}

cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream)
{
    if (!memPool)
        return fc_rt_set(cudaErrorInvalidValue);
    return malloc_async(ptr, size, memPool, stream, 0);
}

cudaError_t cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream)
{
    if (!memPool)
        return fc_rt_set(cudaErrorInvalidValue);
    return malloc_async(ptr, size, memPool, stream, 1);
}

static cudaError_t free_async(void *p, cudaStream_t st, int pt)
{
    ENTER();
    CUdeviceptr d = (CUdeviceptr)(uintptr_t)p;
    if (!p)
        return cudaSuccess;
    return fc_rt_cu(pt ? fc_drv.cuMemFreeAsync_ptsz(d, (CUstream)st) : fc_drv.cuMemFreeAsync(d, (CUstream)st));
}

cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream) { return free_async(devPtr, hStream, 0); }
cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t hStream) { return free_async(devPtr, hStream, 1); }

cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool, const struct cudaMemPoolProps *poolProps)
{
    ENTER();
    if (!memPool || !poolProps)
        return fc_rt_set(cudaErrorInvalidValue);
    CUmemPoolProps p;
    memset(&p, 0, sizeof p);
    p.allocType = (CUmemAllocationType)poolProps->allocType;
    p.handleTypes = (CUmemAllocationHandleType)poolProps->handleTypes;
    p.location.type = (CUmemLocationType)poolProps->location.type;
    p.location.id = poolProps->location.id;
    p.win32SecurityAttributes = poolProps->win32SecurityAttributes;
    p.maxSize = poolProps->maxSize;
    p.usage = poolProps->usage;
    return fc_rt_cu(fc_drv.cuMemPoolCreate((CUmemoryPool *)memPool, &p));
}

FC_RT_FORWARD(cudaMemPoolDestroy, (cudaMemPool_t memPool), cuMemPoolDestroy((CUmemoryPool)memPool))

FC_RT_FORWARD(cudaMemPoolTrimTo, (cudaMemPool_t memPool, size_t minBytesToKeep),
              cuMemPoolTrimTo((CUmemoryPool)memPool, minBytesToKeep))

/* cudaMemPoolAttr and CUmemPool_attribute share their values. */
FC_RT_FORWARD(cudaMemPoolSetAttribute, (cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value),
              cuMemPoolSetAttribute((CUmemoryPool)memPool, (CUmemPool_attribute)attr, value))

FC_RT_FORWARD(cudaMemPoolGetAttribute, (cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value),
              cuMemPoolGetAttribute((CUmemoryPool)memPool, (CUmemPool_attribute)attr, value))

FC_RT_FORWARD(cudaDeviceGetDefaultMemPool, (cudaMemPool_t *memPool, int device),
              cuDeviceGetDefaultMemPool((CUmemoryPool *)memPool, device))

FC_RT_FORWARD(cudaDeviceGetMemPool, (cudaMemPool_t *memPool, int device),
              cuDeviceGetMemPool((CUmemoryPool *)memPool, device))

FC_RT_FORWARD(cudaDeviceSetMemPool, (int device, cudaMemPool_t memPool),
              cuDeviceSetMemPool(device, (CUmemoryPool)memPool))
