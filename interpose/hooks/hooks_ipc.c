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

#include "cuda/ipc.h"
#include "hooks/hook_shape.h"

/* Closing a mapping (ipc.h): its records are taken before the call and
 * settled after it, either family. */
#define IPC_CLOSE_SHAPE(fam, name, ptr, api)                                                        \
    GL_REAL_OR_RETURN(real, name, GL_FAM_##fam##_NO_LIB);                                           \
    bool track = gl_enter() && (ptr) != 0;                                                          \
    struct gl_ipc_close c;                                                                          \
    if (track)                                                                                      \
        gl_ipc_close_begin(&c, (uintptr_t)(ptr));                                                   \
    __typeof__(real(ptr)) rc = real(ptr);                                                           \
    if (track)                                                                                      \
        gl_ipc_close_end(&c, (uintptr_t)(ptr), GL_SHAPE_OK(fam),                                    \
                         c.r || c.extra ? 0 : gl_shape_where(GL_FAM_##fam, 0).device, api);         \
    gl_leave();                                                                                     \
    return rc

/* ---- runtime ------------------------------------------------------------ */

GL_HOOK(cudaError_t, cudaIpcOpenMemHandle, (void **devPtr, cudaIpcMemHandle_t handle, unsigned int flags))
{
    GL_CALL_THEN_BODY(cudaIpcOpenMemHandle, GL_FAM_RUNTIME_NO_LIB, real(devPtr, handle, flags),
                      if (track && rc == cudaSuccess && devPtr != NULL && *devPtr != NULL)
                          gl_ipc_opened(gl_where_runtime(), (uintptr_t)*devPtr, GL_API_CUDA_IPC_OPEN_MEM_HANDLE));
}

GL_HOOK(cudaError_t, cudaIpcCloseMemHandle, (void *devPtr))
{
    IPC_CLOSE_SHAPE(RUNTIME, cudaIpcCloseMemHandle, devPtr, GL_API_CUDA_IPC_CLOSE_MEM_HANDLE);
}

GL_HOOK(cudaError_t, cudaMemPoolImportPointer,
        (void **ptr, cudaMemPool_t memPool, struct cudaMemPoolPtrExportData *exportData))
{
    GL_CALL_THEN_BODY(cudaMemPoolImportPointer, GL_FAM_RUNTIME_NO_LIB, real(ptr, memPool, exportData),
                      if (track && rc == cudaSuccess && ptr != NULL && *ptr != NULL)
                          gl_ipc_imported(gl_where_runtime(), (uintptr_t)*ptr, GL_API_CUDA_MEM_POOL_IMPORT_POINTER));
}

/* ---- driver ------------------------------------------------------------- */

/* A handle opened, through either ABI of the driver's open. */
static void cu_ipc_opened(bool track, CUresult rc, const CUdeviceptr *pdptr, uint16_t api)
{
    if (track && rc == CUDA_SUCCESS && pdptr != NULL && *pdptr != 0)
        gl_ipc_opened(gl_where_driver(*pdptr), *pdptr, api);
}

GL_HOOK(CUresult, cuIpcOpenMemHandle_v2, (CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags))
{
    GL_CALL_THEN_BODY(cuIpcOpenMemHandle_v2, GL_FAM_DRIVER_NO_LIB, real(pdptr, handle, Flags),
                      cu_ipc_opened(track, rc, pdptr, GL_API_CU_IPC_OPEN_MEM_HANDLE));
}

/* The pre-11.0 ABI, same arguments and effect: what a lookup by the bare
 * name finds (ctypes, dlsym) and what cuGetProcAddress hands out below 11000. */
GL_HOOK(CUresult, cuIpcOpenMemHandle, (CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags))
{
    GL_CALL_THEN_BODY(cuIpcOpenMemHandle, GL_FAM_DRIVER_NO_LIB, real(pdptr, handle, Flags),
                      cu_ipc_opened(track, rc, pdptr, GL_API_CU_IPC_OPEN_MEM_HANDLE_V1));
}

GL_HOOK(CUresult, cuIpcCloseMemHandle, (CUdeviceptr dptr))
{
    IPC_CLOSE_SHAPE(DRIVER, cuIpcCloseMemHandle, dptr, GL_API_CU_IPC_CLOSE_MEM_HANDLE);
}

GL_HOOK(CUresult, cuMemPoolImportPointer,
        (CUdeviceptr *ptr_out, CUmemoryPool pool, CUmemPoolPtrExportData *shareData))
{
    GL_CALL_THEN_BODY(cuMemPoolImportPointer, GL_FAM_DRIVER_NO_LIB, real(ptr_out, pool, shareData),
                      if (track && rc == CUDA_SUCCESS && ptr_out != NULL && *ptr_out != 0)
                          gl_ipc_imported(gl_where_driver(*ptr_out), *ptr_out, GL_API_CU_MEM_POOL_IMPORT_POINTER));
}
