/* fakecuda runtime internals, shared by the fc_rt_*.c files that make up both
 * libcudart.so.13 and libcudart_static.a.
 *
 * The runtime never links libcuda: fc_rt_init.c dlopens libcuda.so.1, takes
 * cuGetProcAddress_v2 with dlsym, and fetches every other driver entry point
 * through it by base name, like NVIDIA's runtime.  The pointer types come from
 * the real prototypes via __typeof__, so a wrong signature does not compile.
 * __CUDA_API_VERSION_INTERNAL makes cuda_runtime_api.h declare both the
 * legacy names and the _ptsz/_ptds ones, so both get checked too. */
#ifndef FC_RT_H
#define FC_RT_H

#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <cuda_runtime_api.h>

/* X(field, base name for cuGetProcAddress, per-thread variant?) */
#define FC_RT_DRIVER_FUNCS(X)                                        \
    X(cuInit, "cuInit", 0)                                           \
    X(cuDriverGetVersion, "cuDriverGetVersion", 0)                   \
    X(cuDeviceGetCount, "cuDeviceGetCount", 0)                       \
    X(cuDeviceGet, "cuDeviceGet", 0)                                 \
    X(cuDeviceTotalMem_v2, "cuDeviceTotalMem", 0)                    \
    X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", 0)       \
    X(cuDevicePrimaryCtxReset_v2, "cuDevicePrimaryCtxReset", 0)      \
    X(cuDevicePrimaryCtxRelease_v2, "cuDevicePrimaryCtxRelease", 0)  \
    X(cuDevicePrimaryCtxGetState, "cuDevicePrimaryCtxGetState", 0)   \
    X(cuCtxGetCurrent, "cuCtxGetCurrent", 0)                         \
    X(cuCtxSetCurrent, "cuCtxSetCurrent", 0)                         \
    X(cuCtxGetDevice, "cuCtxGetDevice", 0)                           \
    X(cuCtxSynchronize, "cuCtxSynchronize", 0)                       \
    X(cuStreamCreate, "cuStreamCreate", 0)                           \
    X(cuStreamDestroy_v2, "cuStreamDestroy", 0)                      \
    X(cuStreamSynchronize, "cuStreamSynchronize", 0)                 \
    X(cuStreamSynchronize_ptsz, "cuStreamSynchronize", 1)            \
    X(cuStreamQuery, "cuStreamQuery", 0)                             \
    X(cuStreamQuery_ptsz, "cuStreamQuery", 1)                        \
    X(cuMemGetInfo_v2, "cuMemGetInfo", 0)                            \
    X(cuMemAlloc_v2, "cuMemAlloc", 0)                                \
    X(cuMemFree_v2, "cuMemFree", 0)                                  \
    X(cuMemAllocPitch_v2, "cuMemAllocPitch", 0)                      \
    X(cuMemAllocManaged, "cuMemAllocManaged", 0)                     \
    X(cuMemAllocHost_v2, "cuMemAllocHost", 0)                        \
    X(cuMemHostAlloc, "cuMemHostAlloc", 0)                           \
    X(cuMemFreeHost, "cuMemFreeHost", 0)                             \
    X(cuMemHostRegister_v2, "cuMemHostRegister", 0)                  \
    X(cuMemHostUnregister, "cuMemHostUnregister", 0)                 \
    X(cuMemHostGetDevicePointer_v2, "cuMemHostGetDevicePointer", 0)  \
    X(cuMemcpy, "cuMemcpy", 0)                                       \
    X(cuMemcpy_ptds, "cuMemcpy", 1)                                  \
    X(cuMemcpyAsync, "cuMemcpyAsync", 0)                             \
    X(cuMemcpyAsync_ptsz, "cuMemcpyAsync", 1)                        \
    X(cuMemsetD8_v2, "cuMemsetD8", 0)                                \
    X(cuMemsetD8_v2_ptds, "cuMemsetD8", 1)                           \
    X(cuMemsetD8Async, "cuMemsetD8Async", 0)                         \
    X(cuMemsetD8Async_ptsz, "cuMemsetD8Async", 1)                    \
    X(cuArrayCreate_v2, "cuArrayCreate", 0)                          \
    X(cuArray3DCreate_v2, "cuArray3DCreate", 0)                      \
    X(cuArrayDestroy, "cuArrayDestroy", 0)                           \
    X(cuMipmappedArrayCreate, "cuMipmappedArrayCreate", 0)           \
    X(cuMipmappedArrayDestroy, "cuMipmappedArrayDestroy", 0)         \
    X(cuMemAllocAsync, "cuMemAllocAsync", 0)                         \
    X(cuMemAllocAsync_ptsz, "cuMemAllocAsync", 1)                    \
    X(cuMemFreeAsync, "cuMemFreeAsync", 0)                           \
    X(cuMemFreeAsync_ptsz, "cuMemFreeAsync", 1)                      \
    X(cuMemAllocFromPoolAsync, "cuMemAllocFromPoolAsync", 0)         \
    X(cuMemAllocFromPoolAsync_ptsz, "cuMemAllocFromPoolAsync", 1)    \
    X(cuMemPoolCreate, "cuMemPoolCreate", 0)                         \
    X(cuMemPoolDestroy, "cuMemPoolDestroy", 0)                       \
    X(cuMemPoolTrimTo, "cuMemPoolTrimTo", 0)                         \
    X(cuMemPoolSetAttribute, "cuMemPoolSetAttribute", 0)             \
    X(cuMemPoolGetAttribute, "cuMemPoolGetAttribute", 0)             \
    X(cuDeviceGetDefaultMemPool, "cuDeviceGetDefaultMemPool", 0)     \
    X(cuDeviceGetMemPool, "cuDeviceGetMemPool", 0)                   \
    X(cuDeviceSetMemPool, "cuDeviceSetMemPool", 0)                   \
    X(cuIpcGetMemHandle, "cuIpcGetMemHandle", 0)                     \
    X(cuIpcOpenMemHandle_v2, "cuIpcOpenMemHandle", 0)                 \
    X(cuIpcCloseMemHandle, "cuIpcCloseMemHandle", 0)                 \
    X(cuMemPoolExportToShareableHandle, "cuMemPoolExportToShareableHandle", 0)     \
    X(cuMemPoolImportFromShareableHandle, "cuMemPoolImportFromShareableHandle", 0) \
    X(cuMemPoolExportPointer, "cuMemPoolExportPointer", 0)           \
    X(cuMemPoolImportPointer, "cuMemPoolImportPointer", 0)           \
    X(cuPointerGetAttributes, "cuPointerGetAttributes", 0)           \
    X(cuImportExternalMemory, "cuImportExternalMemory", 0)           \
    X(cuDestroyExternalMemory, "cuDestroyExternalMemory", 0)         \
    X(cuExternalMemoryGetMappedBuffer, "cuExternalMemoryGetMappedBuffer", 0) \
    X(cuExternalMemoryGetMappedMipmappedArray, "cuExternalMemoryGetMappedMipmappedArray", 0) \
    FC_RT_GRAPH_FUNCS(X)

/* Graphs and stream capture (fc_rt_graph*.c). */
#define FC_RT_GRAPH_FUNCS(X)                                                   \
    X(cuStreamBeginCapture_v2, "cuStreamBeginCapture", 0)                      \
    X(cuStreamBeginCapture_v2_ptsz, "cuStreamBeginCapture", 1)                 \
    X(cuStreamEndCapture, "cuStreamEndCapture", 0)                             \
    X(cuStreamEndCapture_ptsz, "cuStreamEndCapture", 1)                        \
    X(cuStreamIsCapturing, "cuStreamIsCapturing", 0)                           \
    X(cuStreamIsCapturing_ptsz, "cuStreamIsCapturing", 1)                      \
    X(cuGraphCreate, "cuGraphCreate", 0)                                       \
    X(cuGraphDestroy, "cuGraphDestroy", 0)                                     \
    X(cuGraphAddMemAllocNode, "cuGraphAddMemAllocNode", 0)                     \
    X(cuGraphAddMemFreeNode, "cuGraphAddMemFreeNode", 0)                       \
    X(cuGraphAddNode_v2, "cuGraphAddNode", 0)                                  \
    X(cuGraphGetNodes, "cuGraphGetNodes", 0)                                   \
    X(cuGraphNodeGetType, "cuGraphNodeGetType", 0)                             \
    X(cuGraphMemAllocNodeGetParams, "cuGraphMemAllocNodeGetParams", 0)         \
    X(cuGraphMemFreeNodeGetParams, "cuGraphMemFreeNodeGetParams", 0)           \
    X(cuGraphInstantiateWithFlags, "cuGraphInstantiate", 0)                    \
    X(cuGraphInstantiateWithParams, "cuGraphInstantiateWithParams", 0)         \
    X(cuGraphInstantiateWithParams_ptsz, "cuGraphInstantiateWithParams", 1)    \
    X(cuGraphLaunch, "cuGraphLaunch", 0)                                       \
    X(cuGraphLaunch_ptsz, "cuGraphLaunch", 1)                                  \
    X(cuGraphExecDestroy, "cuGraphExecDestroy", 0)                             \
    X(cuDeviceGetGraphMemAttribute, "cuDeviceGetGraphMemAttribute", 0)         \
    X(cuDeviceSetGraphMemAttribute, "cuDeviceSetGraphMemAttribute", 0)         \
    X(cuDeviceGraphMemTrim, "cuDeviceGraphMemTrim", 0)

struct fc_rt_driver {
    __typeof__(cuGetProcAddress_v2) *cuGetProcAddress_v2; /* from dlsym */
#define FC_FIELD(f, name, pt) __typeof__(f) *f;
    FC_RT_DRIVER_FUNCS(FC_FIELD)
#undef FC_FIELD
};

/* fc_rt_init.c */
extern struct fc_rt_driver fc_drv;
cudaError_t fc_rt_init(void);           /* load the driver (once) */
cudaError_t fc_rt_ctx(void);            /* ... and make a context current */
/* First thing in a runtime function that needs a current context: returns
 * fc_rt_ctx()'s error from the caller, as the runtime does. */
#define ENTER()                        \
    do {                               \
        cudaError_t e_ = fc_rt_ctx();  \
        if (e_)                        \
            return e_;                 \
    } while (0)
cudaError_t fc_rt_set(cudaError_t e);   /* record e as the last error; returns e */
cudaError_t fc_rt_cu(CUresult r);       /* map + record a driver result */
int fc_rt_device(void);                 /* the runtime's device for this thread */
cudaError_t fc_rt_set_device(int dev);
cudaError_t fc_rt_reset_device(int dev);
/* fc_rt_array.c: channel descriptor -> driver format and channel count;
 * -1 when the driver has no such format. */
int fc_rt_array_format(const struct cudaChannelFormatDesc *d, CUarray_format *fmt, unsigned *nch);

#endif
