/* Driver API hooks (libcuda): programs that call the driver directly, and
 * every runtime that reaches it through cuGetProcAddress (procaddr.c) — the
 * static runtime's allocations are seen only here.  Same rules as the
 * runtime hooks: pass through, record the outermost call.  The bodies are
 * the shapes both families share (hook_shape.h). */
#define __CUDA_API_VERSION_INTERNAL /* the un-renamed (_v2 and _ptsz) prototypes */
#include <cuda.h>

#include "hooks/hook_shape.h"

CUresult cuMemAllocAsync_ptsz(CUdeviceptr *, size_t, CUstream);
CUresult cuMemFreeAsync_ptsz(CUdeviceptr, CUstream);
CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *, size_t, CUmemoryPool, CUstream);

GL_HOOK(CUresult, cuMemAlloc_v2, (CUdeviceptr *dptr, size_t bytesize))
{
    GL_ALLOC_SHAPE(DRIVER, cuMemAlloc_v2, real(dptr, bytesize), GL_OUT(dptr), bytesize, GL_KIND_DEVICE,
                   GL_API_CU_MEM_ALLOC);
}

GL_HOOK(CUresult, cuMemAllocPitch_v2,
        (CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes, size_t Height, unsigned int ElementSizeBytes))
{
    GL_ALLOC_SHAPE(DRIVER, cuMemAllocPitch_v2, real(dptr, pPitch, WidthInBytes, Height, ElementSizeBytes),
                   GL_OUT(dptr), rc == CUDA_SUCCESS && pPitch != NULL ? *pPitch * Height : WidthInBytes * Height,
                   GL_KIND_DEVICE, GL_API_CU_MEM_ALLOC_PITCH);
}

GL_HOOK(CUresult, cuMemAllocManaged, (CUdeviceptr *dptr, size_t bytesize, unsigned int flags))
{
    GL_ALLOC_SHAPE(DRIVER, cuMemAllocManaged, real(dptr, bytesize, flags), GL_OUT(dptr), bytesize,
                   GL_KIND_MANAGED, GL_API_CU_MEM_ALLOC_MANAGED);
}

GL_HOOK(CUresult, cuMemAllocHost_v2, (void **pp, size_t bytesize))
{
    GL_ALLOC_SHAPE(DRIVER, cuMemAllocHost_v2, real(pp, bytesize), GL_OUT(pp), bytesize, GL_KIND_HOST_PINNED,
                   GL_API_CU_MEM_ALLOC_HOST);
}

GL_HOOK(CUresult, cuMemHostAlloc, (void **pp, size_t bytesize, unsigned int Flags))
{
    GL_ALLOC_SHAPE(DRIVER, cuMemHostAlloc, real(pp, bytesize, Flags), GL_OUT(pp), bytesize, GL_KIND_HOST_PINNED,
                   GL_API_CU_MEM_HOST_ALLOC);
}

GL_HOOK(CUresult, cuMemHostRegister_v2, (void *p, size_t bytesize, unsigned int Flags))
{
    GL_REGISTER_SHAPE(DRIVER, cuMemHostRegister_v2, real(p, bytesize, Flags), p, bytesize,
                      GL_API_CU_MEM_HOST_REGISTER);
}

GL_HOOK(CUresult, cuMemAllocAsync, (CUdeviceptr *dptr, size_t bytesize, CUstream hStream))
{
    GL_ASYNC_SHAPE(DRIVER, cuMemAllocAsync, real(dptr, bytesize, hStream), dptr, bytesize, hStream,
                   GL_API_CU_MEM_ALLOC_ASYNC, 0, false);
}

GL_HOOK(CUresult, cuMemAllocAsync_ptsz, (CUdeviceptr *dptr, size_t bytesize, CUstream hStream))
{
    GL_ASYNC_SHAPE(DRIVER, cuMemAllocAsync_ptsz, real(dptr, bytesize, hStream), dptr, bytesize, hStream,
                   GL_API_CU_MEM_ALLOC_ASYNC_PTSZ, 0, true);
}

GL_HOOK(CUresult, cuMemAllocFromPoolAsync,
        (CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream))
{
    GL_ASYNC_SHAPE(DRIVER, cuMemAllocFromPoolAsync, real(dptr, bytesize, pool, hStream), dptr, bytesize, hStream,
                   GL_API_CU_MEM_ALLOC_FROM_POOL_ASYNC, (uintptr_t)pool, false);
}

GL_HOOK(CUresult, cuMemAllocFromPoolAsync_ptsz,
        (CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream))
{
    GL_ASYNC_SHAPE(DRIVER, cuMemAllocFromPoolAsync_ptsz, real(dptr, bytesize, pool, hStream), dptr, bytesize,
                   hStream, GL_API_CU_MEM_ALLOC_FROM_POOL_ASYNC_PTSZ, (uintptr_t)pool, true);
}

GL_HOOK(CUresult, cuMemFree_v2, (CUdeviceptr dptr))
{
    GL_FREE_SHAPE(DRIVER, cuMemFree_v2, dptr, GL_SPACE_ADDR, GL_API_CU_MEM_FREE);
}

GL_HOOK(CUresult, cuMemFreeHost, (void *p))
{
    GL_FREE_SHAPE(DRIVER, cuMemFreeHost, p, GL_SPACE_ADDR, GL_API_CU_MEM_FREE_HOST);
}

GL_HOOK(CUresult, cuMemHostUnregister, (void *p))
{
    GL_FREE_SHAPE(DRIVER, cuMemHostUnregister, p, GL_SPACE_ADDR, GL_API_CU_MEM_HOST_UNREGISTER);
}

GL_HOOK(CUresult, cuMemFreeAsync, (CUdeviceptr dptr, CUstream hStream))
{
    GL_FREE_ASYNC_SHAPE(DRIVER, cuMemFreeAsync, dptr, hStream, GL_API_CU_MEM_FREE_ASYNC, false);
}

GL_HOOK(CUresult, cuMemFreeAsync_ptsz, (CUdeviceptr dptr, CUstream hStream))
{
    GL_FREE_ASYNC_SHAPE(DRIVER, cuMemFreeAsync_ptsz, dptr, hStream, GL_API_CU_MEM_FREE_ASYNC_PTSZ, true);
}
