/* Runtime: linear device memory, managed and host memory, copies, memsets,
 * pointer attributes -- each a thin layer over the driver call the real
 * runtime makes, so an interposer on the driver sees exactly one call. */
#include "fc_rt.h"

#include <stdint.h>

/* cudaMalloc(&p, 0) succeeds with p = NULL without reaching the driver. */
cudaError_t cudaMalloc(void **devPtr, size_t size)
{
    ENTER();
    if (!devPtr)
        return fc_rt_set(cudaErrorInvalidValue);
    if (size == 0) {
        *devPtr = NULL;
        return cudaSuccess;
    }
    CUdeviceptr d;
    CUresult r = fc_drv.cuMemAlloc_v2(&d, size);
    if (r == CUDA_SUCCESS)
        *devPtr = (void *)(uintptr_t)d;
    return fc_rt_cu(r);
}

cudaError_t cudaFree(void *devPtr)
{
    ENTER(); /* cudaFree(0) is the classic "create the context" idiom */
    if (!devPtr)
        return cudaSuccess;
    return fc_rt_cu(fc_drv.cuMemFree_v2((CUdeviceptr)(uintptr_t)devPtr));
}

cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    ENTER();
    if (!devPtr)
        return fc_rt_set(cudaErrorInvalidValue);
    CUdeviceptr d;
    CUresult r = fc_drv.cuMemAllocManaged(&d, size, flags);
    if (r == CUDA_SUCCESS)
        *devPtr = (void *)(uintptr_t)d;
    return fc_rt_cu(r);
}

cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
    ENTER();
    if (!devPtr || !pitch)
        return fc_rt_set(cudaErrorInvalidValue);
    CUdeviceptr d;
    CUresult r = fc_drv.cuMemAllocPitch_v2(&d, pitch, width, height, 16);
    if (r == CUDA_SUCCESS)
        *devPtr = (void *)(uintptr_t)d;
    return fc_rt_cu(r);
}

cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent)
{
    ENTER();
    if (!pitchedDevPtr)
        return fc_rt_set(cudaErrorInvalidValue);
    size_t depth = extent.depth ? extent.depth : 1, height = extent.height ? extent.height : 1;
    if (height > SIZE_MAX / depth)
        return fc_rt_set(cudaErrorMemoryAllocation);
    CUdeviceptr d;
    size_t pitch;
    CUresult r = fc_drv.cuMemAllocPitch_v2(&d, &pitch, extent.width, height * depth, 16);
    if (r == CUDA_SUCCESS)
        *pitchedDevPtr = (struct cudaPitchedPtr){
            .ptr = (void *)(uintptr_t)d, .pitch = pitch, .xsize = extent.width, .ysize = extent.height};
    return fc_rt_cu(r);
}

cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    ENTER();
    if (!ptr)
        return fc_rt_set(cudaErrorInvalidValue);
    return fc_rt_cu(fc_drv.cuMemHostAlloc(ptr, size, 0)); /* NVIDIA's runtime never asks for cuMemAllocHost */
}

cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
    ENTER();
    if (!pHost)
        return fc_rt_set(cudaErrorInvalidValue);
    return fc_rt_cu(fc_drv.cuMemHostAlloc(pHost, size, flags));
}

cudaError_t cudaFreeHost(void *ptr)
{
    ENTER();
    if (!ptr)
        return cudaSuccess;
    return fc_rt_cu(fc_drv.cuMemFreeHost(ptr));
}

FC_RT_FORWARD(cudaHostRegister, (void *ptr, size_t size, unsigned int flags), cuMemHostRegister_v2(ptr, size, flags))

FC_RT_FORWARD(cudaHostUnregister, (void *ptr), cuMemHostUnregister(ptr))

cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
    ENTER();
    if (!pDevice)
        return fc_rt_set(cudaErrorInvalidValue);
    CUdeviceptr d;
    CUresult r = fc_drv.cuMemHostGetDevicePointer_v2(&d, pHost, flags);
    if (r == CUDA_SUCCESS)
        *pDevice = (void *)(uintptr_t)d;
    return fc_rt_cu(r);
}

/* ---- copies and memsets (unified addressing: one generic driver call) -- */

static cudaError_t memcpy_(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind, int async,
                           cudaStream_t st, int pt)
{
    ENTER();
    if ((unsigned)kind > (unsigned)cudaMemcpyDefault)
        return fc_rt_set(cudaErrorInvalidMemcpyDirection);
    CUdeviceptr d = (CUdeviceptr)(uintptr_t)dst, s = (CUdeviceptr)(uintptr_t)src;
    CUresult r;
    if (async)
        r = pt ? fc_drv.cuMemcpyAsync_ptsz(d, s, count, (CUstream)st) : fc_drv.cuMemcpyAsync(d, s, count, (CUstream)st);
    else
        r = pt ? fc_drv.cuMemcpy_ptds(d, s, count) : fc_drv.cuMemcpy(d, s, count);
    return fc_rt_cu(r);
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    return memcpy_(dst, src, count, kind, 0, NULL, 0);
}

cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    return memcpy_(dst, src, count, kind, 0, NULL, 1);
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return memcpy_(dst, src, count, kind, 1, stream, 0);
}

cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                                 cudaStream_t stream)
{
    return memcpy_(dst, src, count, kind, 1, stream, 1);
}

static cudaError_t memset_(void *p, int value, size_t count, int async, cudaStream_t st, int pt)
{
    ENTER();
    CUdeviceptr d = (CUdeviceptr)(uintptr_t)p;
    unsigned char v = (unsigned char)value;
    CUresult r;
    if (async)
        r = pt ? fc_drv.cuMemsetD8Async_ptsz(d, v, count, (CUstream)st) : fc_drv.cuMemsetD8Async(d, v, count, (CUstream)st);
    else
        r = pt ? fc_drv.cuMemsetD8_v2_ptds(d, v, count) : fc_drv.cuMemsetD8_v2(d, v, count);
    return fc_rt_cu(r);
}

cudaError_t cudaMemset(void *devPtr, int value, size_t count) { return memset_(devPtr, value, count, 0, NULL, 0); }
cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count) { return memset_(devPtr, value, count, 0, NULL, 1); }

cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    return memset_(devPtr, value, count, 1, stream, 0);
}

cudaError_t cudaMemsetAsync_ptsz(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    return memset_(devPtr, value, count, 1, stream, 1);
}

/* ---- pointer attributes ---------------------------------------------- */

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr)
{
    ENTER();
    if (!attributes)
        return fc_rt_set(cudaErrorInvalidValue);
    unsigned type = 0, managed = 0;
    int dev = -2;
    CUpointer_attribute a[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                               CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
    void *v[] = {&type, &managed, &dev};
    CUresult r = fc_drv.cuPointerGetAttributes(3, a, v, (CUdeviceptr)(uintptr_t)ptr);
    if (r != CUDA_SUCCESS)
        return fc_rt_cu(r);
    attributes->device = dev;
    if (type == CU_MEMORYTYPE_DEVICE) {
        attributes->type = managed ? cudaMemoryTypeManaged : cudaMemoryTypeDevice;
        attributes->devicePointer = (void *)ptr;
        attributes->hostPointer = managed ? (void *)ptr : NULL;
    } else if (type == CU_MEMORYTYPE_HOST) {
        attributes->type = cudaMemoryTypeHost;
        attributes->devicePointer = (void *)ptr;
        attributes->hostPointer = (void *)ptr;
    } else { /* plain host memory: a success since CUDA 11 */
        attributes->type = cudaMemoryTypeUnregistered;
        attributes->device = -2;
        attributes->devicePointer = NULL;
        attributes->hostPointer = (void *)ptr;
    }
    return cudaSuccess;
}
