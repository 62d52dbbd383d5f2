/* Hooks for memory another process exported and this one maps: IPC handles
 * and imported pool pointers, runtime and driver (ipc.h says what is counted
 * and why).  Same rules as every hook: the real call's result and
 * out-parameters are untouched, the outermost intercepted call records, so
 * cudaIpcOpenMemHandle reaching cuIpcOpenMemHandle_v2 is one record.  Pool
 * pointers are freed through the cudaFree / cuMemFree family (hooks_runtime.c,
 * hooks_driver.c); importing the pool itself allocates nothing. */
#define __CUDA_API_VERSION_INTERNAL /* the un-renamed _v2 prototypes */
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "cuda/calls.h"
#include "cuda/ipc.h"
#include "hooks/hook.h"
#include "snapshot_format.h"

#define NO_RUNTIME cudaErrorInitializationError
#define NO_DRIVER CUDA_ERROR_NOT_INITIALIZED

/* ---- runtime ------------------------------------------------------------ */

GL_HOOK(cudaError_t, cudaIpcOpenMemHandle, (void **devPtr, cudaIpcMemHandle_t handle, unsigned int flags))
{
    GL_CALL_THEN_BODY(cudaIpcOpenMemHandle, NO_RUNTIME, real(devPtr, handle, flags),
                      if (track && rc == cudaSuccess && devPtr != NULL && *devPtr != NULL)
                          gl_ipc_opened(gl_where_runtime(), (uintptr_t)*devPtr, GL_API_CUDA_IPC_OPEN_MEM_HANDLE));
}

GL_HOOK(cudaError_t, cudaIpcCloseMemHandle, (void *devPtr))
{
    GL_REAL_OR_RETURN(real, cudaIpcCloseMemHandle, NO_RUNTIME);
    bool track = gl_enter() && devPtr != NULL;
    struct gl_ipc_close c;
    if (track)
        gl_ipc_close_begin(&c, (uintptr_t)devPtr);
    cudaError_t rc = real(devPtr);
    if (track)
        gl_ipc_close_end(&c, (uintptr_t)devPtr, rc == cudaSuccess,
                         c.r || c.extra ? 0 : gl_where_runtime().device, GL_API_CUDA_IPC_CLOSE_MEM_HANDLE);
    gl_leave();
    return rc;
}

GL_HOOK(cudaError_t, cudaMemPoolImportPointer,
        (void **ptr, cudaMemPool_t memPool, struct cudaMemPoolPtrExportData *exportData))
{
    GL_CALL_THEN_BODY(cudaMemPoolImportPointer, NO_RUNTIME, real(ptr, memPool, exportData),
                      if (track && rc == cudaSuccess && ptr != NULL && *ptr != NULL)
                          gl_ipc_imported(gl_where_runtime(), (uintptr_t)*ptr, GL_API_CUDA_MEM_POOL_IMPORT_POINTER));
}

/* ---- driver ------------------------------------------------------------- */

GL_HOOK(CUresult, cuIpcOpenMemHandle_v2, (CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags))
{
    GL_CALL_THEN_BODY(cuIpcOpenMemHandle_v2, NO_DRIVER, real(pdptr, handle, Flags),
                      if (track && rc == CUDA_SUCCESS && pdptr != NULL && *pdptr != 0)
                          gl_ipc_opened(gl_where_driver(*pdptr), *pdptr, GL_API_CU_IPC_OPEN_MEM_HANDLE));
}

GL_HOOK(CUresult, cuIpcCloseMemHandle, (CUdeviceptr dptr))
{
    GL_REAL_OR_RETURN(real, cuIpcCloseMemHandle, NO_DRIVER);
    bool track = gl_enter() && dptr != 0;
    struct gl_ipc_close c;
    if (track)
        gl_ipc_close_begin(&c, dptr);
    CUresult rc = real(dptr);
    if (track)
        gl_ipc_close_end(&c, dptr, rc == CUDA_SUCCESS, c.r || c.extra ? 0 : gl_where_driver(0).device,
                         GL_API_CU_IPC_CLOSE_MEM_HANDLE);
    gl_leave();
    return rc;
}

GL_HOOK(CUresult, cuMemPoolImportPointer,
        (CUdeviceptr *ptr_out, CUmemoryPool pool, CUmemPoolPtrExportData *shareData))
{
    GL_CALL_THEN_BODY(cuMemPoolImportPointer, NO_DRIVER, real(ptr_out, pool, shareData),
                      if (track && rc == CUDA_SUCCESS && ptr_out != NULL && *ptr_out != 0)
                          gl_ipc_imported(gl_where_driver(*ptr_out), *ptr_out, GL_API_CU_MEM_POOL_IMPORT_POINTER));
}
