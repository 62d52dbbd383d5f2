/* Runtime: external memory, each one call of the driver function the real
 * runtime uses (cudaImportExternalMemory -> cuImportExternalMemory, ...).
 * The runtime's handles are the driver's. */
#include "fc_rt.h"

#include <stdint.h>
#include <string.h>

/* cudaExternalMemoryHandleType and CUexternalMemoryHandleType share their
 * values, and the two handle descriptors their layout. */
_Static_assert(sizeof(struct cudaExternalMemoryHandleDesc) == sizeof(CUDA_EXTERNAL_MEMORY_HANDLE_DESC),
               "same handle descriptor layout");

cudaError_t cudaImportExternalMemory(cudaExternalMemory_t *extMem_out,
                                     const struct cudaExternalMemoryHandleDesc *memHandleDesc)
{
    ENTER();
    if (!memHandleDesc)
        return fc_rt_set(cudaErrorInvalidValue);
    CUDA_EXTERNAL_MEMORY_HANDLE_DESC d;
    memcpy(&d, memHandleDesc, sizeof d);
    return fc_rt_cu(fc_drv.cuImportExternalMemory((CUexternalMemory *)extMem_out, &d));
}

FC_RT_FORWARD(cudaDestroyExternalMemory, (cudaExternalMemory_t extMem),
              cuDestroyExternalMemory((CUexternalMemory)extMem))

/* Freed with cudaFree, as documented. */
cudaError_t cudaExternalMemoryGetMappedBuffer(void **devPtr, cudaExternalMemory_t extMem,
                                              const struct cudaExternalMemoryBufferDesc *bufferDesc)
{
    ENTER();
    if (!devPtr || !bufferDesc)
        return fc_rt_set(cudaErrorInvalidValue);
    CUDA_EXTERNAL_MEMORY_BUFFER_DESC b = {.offset = bufferDesc->offset, .size = bufferDesc->size,
                                          .flags = bufferDesc->flags};
    CUdeviceptr d;
    CUresult r = fc_drv.cuExternalMemoryGetMappedBuffer(&d, (CUexternalMemory)extMem, &b);
    if (r == CUDA_SUCCESS)
        *devPtr = (void *)(uintptr_t)d;
    return fc_rt_cu(r);
}

/* Freed with cudaFreeMipmappedArray, as documented. */
cudaError_t cudaExternalMemoryGetMappedMipmappedArray(cudaMipmappedArray_t *mipmap, cudaExternalMemory_t extMem,
                                                      const struct cudaExternalMemoryMipmappedArrayDesc *mipmapDesc)
{
    ENTER();
    if (!mipmap || !mipmapDesc)
        return fc_rt_set(cudaErrorInvalidValue);
    CUarray_format fmt;
    unsigned nch;
    if (fc_rt_array_format(&mipmapDesc->formatDesc, &fmt, &nch))
        return fc_rt_set(cudaErrorInvalidChannelDescriptor);
    CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC m = {
        .offset = mipmapDesc->offset,
        .arrayDesc = {.Width = mipmapDesc->extent.width, .Height = mipmapDesc->extent.height,
                      .Depth = mipmapDesc->extent.depth, .Format = fmt, .NumChannels = nch,
                      .Flags = mipmapDesc->flags},
        .numLevels = mipmapDesc->numLevels,
    };
    return fc_rt_cu(fc_drv.cuExternalMemoryGetMappedMipmappedArray((CUmipmappedArray *)mipmap,
                                                                   (CUexternalMemory)extMem, &m));
}
