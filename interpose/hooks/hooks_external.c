/* Hooks for external memory: memory another API allocated (Vulkan, Direct3D,
 * a DMA-BUF exporter, NvSciBuf) that CUDA imports and then maps as a buffer
 * or a mipmapped array.
 *
 * Three things can be left behind, each with its own release call, and each
 * keeps the other API's memory alive: the imported object
 * (cudaImportExternalMemory -> cudaDestroyExternalMemory), every buffer
 * mapped from it (-> cudaFree / cuMemFree, even after the object was
 * destroyed) and every mipmapped array mapped from it
 * (-> cudaFreeMipmappedArray / cuMipmappedArrayDestroy).  Each is recorded
 * with its stack, kind "external", so what is never released is reported at
 * the line that imported or mapped it.  None of it was allocated through
 * CUDA, so it counts toward none of this process's device counters or peaks
 * (gl_kind_is_mapping), like another process's IPC memory.
 *
 * Keys: the imported object in its own space (it is an opaque handle), a
 * buffer by its address (the cudaFree family finds it there), an array by its
 * handle with the other arrays.  Sizes come from the call: the object's size
 * is in its handle descriptor, a buffer's in its buffer descriptor, an
 * array's from its format and extent (array_size.h).  Same rules as every
 * hook: results untouched, the outermost intercepted call records, so
 * cudaImportExternalMemory reaching cuImportExternalMemory is one record. */
#define __CUDA_API_VERSION_INTERNAL /* the un-renamed _v2 prototypes */
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "cuda/array_size.h"
#include "hooks/hook_shape.h"

static void imported(bool track, bool ok, enum gl_api_family fam, void *handle, uint64_t size, uint16_t api)
{
    if (track && ok && handle != NULL)
        gl_call_alloc(gl_shape_where(fam, 0), (uintptr_t)handle, size, 0, GL_KIND_EXTERNAL, api, GL_SPACE_EXTMEM);
}

/* Destroying the object (GL_FREE_SHAPE, in its own key space): its buffers
 * and arrays stay recorded until they are freed themselves, as CUDA
 * requires. */

/* ---- runtime ------------------------------------------------------------ */

GL_HOOK(cudaError_t, cudaImportExternalMemory,
        (cudaExternalMemory_t *extMem_out, const struct cudaExternalMemoryHandleDesc *memHandleDesc))
{
    GL_CALL_THEN_BODY(cudaImportExternalMemory, GL_FAM_RUNTIME_NO_LIB, real(extMem_out, memHandleDesc),
                      imported(track, rc == cudaSuccess && extMem_out != NULL && memHandleDesc != NULL, GL_FAMILY_RUNTIME,
                               extMem_out ? (void *)*extMem_out : NULL, memHandleDesc ? memHandleDesc->size : 0,
                               GL_API_CUDA_IMPORT_EXTERNAL_MEMORY));
}

GL_HOOK(cudaError_t, cudaDestroyExternalMemory, (cudaExternalMemory_t extMem))
{
    GL_FREE_SHAPE(RUNTIME, cudaDestroyExternalMemory, extMem, GL_SPACE_EXTMEM, GL_API_CUDA_DESTROY_EXTERNAL_MEMORY);
}

GL_HOOK(cudaError_t, cudaExternalMemoryGetMappedBuffer,
        (void **devPtr, cudaExternalMemory_t extMem, const struct cudaExternalMemoryBufferDesc *bufferDesc))
{
    GL_CALL_THEN_BODY(cudaExternalMemoryGetMappedBuffer, GL_FAM_RUNTIME_NO_LIB, real(devPtr, extMem, bufferDesc),
                      if (track && rc == cudaSuccess && devPtr != NULL && *devPtr != NULL && bufferDesc != NULL)
                          gl_call_alloc(gl_where_runtime(), (uintptr_t)*devPtr, bufferDesc->size, 0, GL_KIND_EXTERNAL,
                                        GL_API_CUDA_EXTERNAL_MEMORY_GET_MAPPED_BUFFER, GL_SPACE_ADDR));
}

GL_HOOK(cudaError_t, cudaExternalMemoryGetMappedMipmappedArray,
        (cudaMipmappedArray_t *mipmap, cudaExternalMemory_t extMem,
         const struct cudaExternalMemoryMipmappedArrayDesc *mipmapDesc))
{
    GL_CALL_THEN_BODY(cudaExternalMemoryGetMappedMipmappedArray, GL_FAM_RUNTIME_NO_LIB, real(mipmap, extMem, mipmapDesc),
                      if (track && rc == cudaSuccess && mipmap != NULL && *mipmap != NULL && mipmapDesc != NULL)
                          gl_call_alloc(gl_where_runtime(), (uintptr_t)*mipmap,
                                        gl_array_bytes_runtime(&mipmapDesc->formatDesc, mipmapDesc->extent, mipmapDesc->numLevels),
                                        0, GL_KIND_EXTERNAL, GL_API_CUDA_EXTERNAL_MEMORY_GET_MAPPED_MIPMAPPED_ARRAY,
                                        GL_SPACE_ARRAY));
}

/* ---- driver ------------------------------------------------------------- */

GL_HOOK(CUresult, cuImportExternalMemory,
        (CUexternalMemory *extMem_out, const CUDA_EXTERNAL_MEMORY_HANDLE_DESC *memHandleDesc))
{
    GL_CALL_THEN_BODY(cuImportExternalMemory, GL_FAM_DRIVER_NO_LIB, real(extMem_out, memHandleDesc),
                      imported(track, rc == CUDA_SUCCESS && extMem_out != NULL && memHandleDesc != NULL, GL_FAMILY_DRIVER,
                               extMem_out ? (void *)*extMem_out : NULL, memHandleDesc ? memHandleDesc->size : 0,
                               GL_API_CU_IMPORT_EXTERNAL_MEMORY));
}

GL_HOOK(CUresult, cuDestroyExternalMemory, (CUexternalMemory extMem))
{
    GL_FREE_SHAPE(DRIVER, cuDestroyExternalMemory, extMem, GL_SPACE_EXTMEM, GL_API_CU_DESTROY_EXTERNAL_MEMORY);
}

GL_HOOK(CUresult, cuExternalMemoryGetMappedBuffer,
        (CUdeviceptr *devPtr, CUexternalMemory extMem, const CUDA_EXTERNAL_MEMORY_BUFFER_DESC *bufferDesc))
{
    GL_CALL_THEN_BODY(cuExternalMemoryGetMappedBuffer, GL_FAM_DRIVER_NO_LIB, real(devPtr, extMem, bufferDesc),
                      if (track && rc == CUDA_SUCCESS && devPtr != NULL && *devPtr != 0 && bufferDesc != NULL)
                          gl_call_alloc(gl_where_driver(*devPtr), *devPtr, bufferDesc->size, 0, GL_KIND_EXTERNAL,
                                        GL_API_CU_EXTERNAL_MEMORY_GET_MAPPED_BUFFER, GL_SPACE_ADDR));
}

GL_HOOK(CUresult, cuExternalMemoryGetMappedMipmappedArray,
        (CUmipmappedArray *mipmap, CUexternalMemory extMem,
         const CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC *mipmapDesc))
{
    GL_CALL_THEN_BODY(cuExternalMemoryGetMappedMipmappedArray, GL_FAM_DRIVER_NO_LIB, real(mipmap, extMem, mipmapDesc),
                      if (track && rc == CUDA_SUCCESS && mipmap != NULL && *mipmap != NULL && mipmapDesc != NULL)
                          gl_call_alloc(gl_where_driver(0), (uintptr_t)*mipmap,
                                        gl_array_bytes_driver(&mipmapDesc->arrayDesc, mipmapDesc->numLevels), 0,
                                        GL_KIND_EXTERNAL, GL_API_CU_EXTERNAL_MEMORY_GET_MAPPED_MIPMAPPED_ARRAY,
                                        GL_SPACE_ARRAY));
}
