/* fakecuda runtime internals, shared by the fc_rt_*.c files that make up both
 * libcudart.so.13 and libcudart_static.a.
 *
 * The runtime never links libcuda: fc_rt_init.c dlopens libcuda.so.1, takes
 * cuGetProcAddress_v2 with dlsym, and makes every request NVIDIA's runtime
 * makes, in its order, at its versions and flags (real_runtime_requests.txt).  The pointer types come from
 * the real prototypes via __typeof__, so a wrong signature does not compile.
 * __CUDA_API_VERSION_INTERNAL makes cuda_runtime_api.h declare both the
 * legacy names and the _ptsz/_ptds ones, so both get checked too. */
#ifndef FC_RT_H
#define FC_RT_H

#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <cuda_runtime_api.h>

/* X(field, base name for cuGetProcAddress, version, per-thread variant?):
 * each field is the answer to one request NVIDIA's 13.0 runtime makes
 * (real_runtime_requests.txt), at the version it asks for, so a field holds
 * the ABI the real runtime gets: cuDevicePrimaryCtxReset@7000 is the v1
 * export, cuMemAlloc@3020 is cuMemAlloc_v2. */
#define FC_RT_DRIVER_FUNCS(X)                                        \
    X(cuInit, "cuInit", 2000, 0)                                           \
    X(cuDriverGetVersion, "cuDriverGetVersion", 2020, 0)                   \
    X(cuDeviceGetCount, "cuDeviceGetCount", 2000, 0)                       \
    X(cuDeviceGet, "cuDeviceGet", 2000, 0)                                 \
    X(cuDeviceTotalMem_v2, "cuDeviceTotalMem", 3020, 0)                    \
    X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", 7000, 0)       \
    X(cuDevicePrimaryCtxReset, "cuDevicePrimaryCtxReset", 7000, 0)         \
    X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease", 7000, 0)  \
    X(cuDevicePrimaryCtxGetState, "cuDevicePrimaryCtxGetState", 7000, 0)   \
    X(cuCtxGetCurrent, "cuCtxGetCurrent", 4000, 0)                         \
    X(cuCtxSetCurrent, "cuCtxSetCurrent", 4000, 0)                         \
    X(cuCtxGetDevice, "cuCtxGetDevice", 2000, 0)                           \
    X(cuCtxSynchronize, "cuCtxSynchronize", 2000, 0)                       \
    X(cuStreamCreate, "cuStreamCreate", 2000, 0)                           \
    X(cuStreamDestroy_v2, "cuStreamDestroy", 4000, 0)                      \
    X(cuStreamSynchronize, "cuStreamSynchronize", 2000, 0)                 \
    X(cuStreamSynchronize_ptsz, "cuStreamSynchronize", 7000, 1)            \
    X(cuStreamQuery, "cuStreamQuery", 2000, 0)                             \
    X(cuStreamQuery_ptsz, "cuStreamQuery", 7000, 1)                        \
    X(cuMemGetInfo_v2, "cuMemGetInfo", 3020, 0)                            \
    X(cuMemAlloc_v2, "cuMemAlloc", 3020, 0)                                \
    X(cuMemFree_v2, "cuMemFree", 3020, 0)                                  \
    X(cuMemAllocPitch_v2, "cuMemAllocPitch", 3020, 0)                      \
    X(cuMemAllocManaged, "cuMemAllocManaged", 6000, 0)                     \
    X(cuMemHostAlloc, "cuMemHostAlloc", 2020, 0)                           \
    X(cuMemFreeHost, "cuMemFreeHost", 2000, 0)                             \
    X(cuMemHostRegister_v2, "cuMemHostRegister", 6050, 0)                  \
    X(cuMemHostUnregister, "cuMemHostUnregister", 4000, 0)                 \
    X(cuMemHostGetDevicePointer_v2, "cuMemHostGetDevicePointer", 3020, 0)  \
    X(cuMemcpy, "cuMemcpy", 4000, 0)                                       \
    X(cuMemcpy_ptds, "cuMemcpy", 7000, 1)                                  \
    X(cuMemcpyAsync, "cuMemcpyAsync", 4000, 0)                             \
    X(cuMemcpyAsync_ptsz, "cuMemcpyAsync", 7000, 1)                        \
    X(cuMemsetD8_v2, "cuMemsetD8", 3020, 0)                                \
    X(cuMemsetD8_v2_ptds, "cuMemsetD8", 7000, 1)                           \
    X(cuMemsetD8Async, "cuMemsetD8Async", 3020, 0)                         \
    X(cuMemsetD8Async_ptsz, "cuMemsetD8Async", 7000, 1)                    \
    X(cuArrayCreate_v2, "cuArrayCreate", 3020, 0)                          \
    X(cuArray3DCreate_v2, "cuArray3DCreate", 3020, 0)                      \
    X(cuArrayDestroy, "cuArrayDestroy", 2000, 0)                           \
    X(cuMipmappedArrayCreate, "cuMipmappedArrayCreate", 5000, 0)           \
    X(cuMipmappedArrayDestroy, "cuMipmappedArrayDestroy", 5000, 0)         \
    X(cuMemAllocAsync, "cuMemAllocAsync", 11020, 0)                         \
    X(cuMemAllocAsync_ptsz, "cuMemAllocAsync", 11020, 1)                    \
    X(cuMemFreeAsync, "cuMemFreeAsync", 11020, 0)                           \
    X(cuMemFreeAsync_ptsz, "cuMemFreeAsync", 11020, 1)                      \
    X(cuMemAllocFromPoolAsync, "cuMemAllocFromPoolAsync", 11020, 0)         \
    X(cuMemAllocFromPoolAsync_ptsz, "cuMemAllocFromPoolAsync", 11020, 1)    \
    X(cuMemPoolCreate, "cuMemPoolCreate", 11020, 0)                         \
    X(cuMemPoolDestroy, "cuMemPoolDestroy", 11020, 0)                       \
    X(cuMemPoolTrimTo, "cuMemPoolTrimTo", 11020, 0)                         \
    X(cuMemPoolSetAttribute, "cuMemPoolSetAttribute", 11020, 0)             \
    X(cuMemPoolGetAttribute, "cuMemPoolGetAttribute", 11020, 0)             \
    X(cuDeviceGetDefaultMemPool, "cuDeviceGetDefaultMemPool", 11020, 0)     \
    X(cuDeviceGetMemPool, "cuDeviceGetMemPool", 11020, 0)                   \
    X(cuDeviceSetMemPool, "cuDeviceSetMemPool", 11020, 0)                   \
    X(cuIpcGetMemHandle, "cuIpcGetMemHandle", 4010, 0)                     \
    X(cuIpcOpenMemHandle_v2, "cuIpcOpenMemHandle", 11000, 0)                 \
    X(cuIpcCloseMemHandle, "cuIpcCloseMemHandle", 4010, 0)                 \
    X(cuMemPoolExportToShareableHandle, "cuMemPoolExportToShareableHandle", 11020, 0)     \
    X(cuMemPoolImportFromShareableHandle, "cuMemPoolImportFromShareableHandle", 11020, 0) \
    X(cuMemPoolExportPointer, "cuMemPoolExportPointer", 11020, 0)           \
    X(cuMemPoolImportPointer, "cuMemPoolImportPointer", 11020, 0)           \
    X(cuPointerGetAttributes, "cuPointerGetAttributes", 7000, 0)           \
    X(cuImportExternalMemory, "cuImportExternalMemory", 10000, 0)           \
    X(cuDestroyExternalMemory, "cuDestroyExternalMemory", 10000, 0)         \
    X(cuExternalMemoryGetMappedBuffer, "cuExternalMemoryGetMappedBuffer", 10000, 0) \
    X(cuExternalMemoryGetMappedMipmappedArray, "cuExternalMemoryGetMappedMipmappedArray", 10000, 0) \
    FC_RT_GRAPH_FUNCS(X)                                                    \
    FC_RT_TORCH_FUNCS(X)

/* Device properties, events, stream priorities and host functions
 * (fc_rt_props.c, fc_rt_event.c): what PyTorch's paths ask for. */
#define FC_RT_TORCH_FUNCS(X)                                                   \
    X(cuDeviceGetAttribute, "cuDeviceGetAttribute", 2000, 0)                   \
    X(cuDeviceGetName, "cuDeviceGetName", 2000, 0)                             \
    X(cuDeviceGetUuid, "cuDeviceGetUuid", 9020, 0)                             \
    X(cuDeviceGetPCIBusId, "cuDeviceGetPCIBusId", 4010, 0)                     \
    X(cuDeviceCanAccessPeer, "cuDeviceCanAccessPeer", 4000, 0)                 \
    X(cuCtxEnablePeerAccess, "cuCtxEnablePeerAccess", 4000, 0)                 \
    X(cuCtxGetStreamPriorityRange, "cuCtxGetStreamPriorityRange", 5050, 0)     \
    X(cuStreamCreateWithPriority, "cuStreamCreateWithPriority", 5050, 0)       \
    X(cuStreamGetPriority, "cuStreamGetPriority", 5050, 0)                     \
    X(cuStreamGetPriority_ptsz, "cuStreamGetPriority", 7000, 1)                \
    X(cuEventCreate, "cuEventCreate", 2000, 0)                                 \
    X(cuEventRecord, "cuEventRecord", 2000, 0)                                 \
    X(cuEventRecord_ptsz, "cuEventRecord", 7000, 1)                            \
    X(cuEventRecordWithFlags, "cuEventRecordWithFlags", 11010, 0)              \
    X(cuEventRecordWithFlags_ptsz, "cuEventRecordWithFlags", 11010, 1)         \
    X(cuEventQuery, "cuEventQuery", 2000, 0)                                   \
    X(cuEventSynchronize, "cuEventSynchronize", 2000, 0)                       \
    X(cuEventDestroy_v2, "cuEventDestroy", 4000, 0)                            \
    X(cuEventElapsedTime_v2, "cuEventElapsedTime", 12080, 0)                   \
    X(cuStreamWaitEvent, "cuStreamWaitEvent", 3020, 0)                         \
    X(cuStreamWaitEvent_ptsz, "cuStreamWaitEvent", 7000, 1)                    \
    X(cuStreamAddCallback, "cuStreamAddCallback", 5000, 0)                     \
    X(cuStreamAddCallback_ptsz, "cuStreamAddCallback", 7000, 1)                \
    X(cuLaunchHostFunc, "cuLaunchHostFunc", 10000, 0)                          \
    X(cuLaunchHostFunc_ptsz, "cuLaunchHostFunc", 10000, 1)

/* Graphs and stream capture (fc_rt_graph*.c). */
#define FC_RT_GRAPH_FUNCS(X)                                                   \
    X(cuStreamBeginCapture_v2, "cuStreamBeginCapture", 10010, 0)                      \
    X(cuStreamBeginCapture_v2_ptsz, "cuStreamBeginCapture", 10010, 1)                 \
    X(cuStreamEndCapture, "cuStreamEndCapture", 10000, 0)                             \
    X(cuStreamEndCapture_ptsz, "cuStreamEndCapture", 10000, 1)                        \
    X(cuStreamIsCapturing, "cuStreamIsCapturing", 10000, 0)                           \
    X(cuStreamIsCapturing_ptsz, "cuStreamIsCapturing", 10000, 1)                      \
    X(cuGraphCreate, "cuGraphCreate", 10000, 0)                                       \
    X(cuGraphDestroy, "cuGraphDestroy", 10000, 0)                                     \
    X(cuGraphAddMemAllocNode, "cuGraphAddMemAllocNode", 11040, 0)                     \
    X(cuGraphAddMemFreeNode, "cuGraphAddMemFreeNode", 11040, 0)                       \
    X(cuGraphAddNode_v2, "cuGraphAddNode", 12030, 0)                                  \
    X(cuGraphGetNodes, "cuGraphGetNodes", 10000, 0)                                   \
    X(cuGraphNodeGetType, "cuGraphNodeGetType", 10000, 0)                             \
    X(cuGraphMemAllocNodeGetParams, "cuGraphMemAllocNodeGetParams", 11040, 0)         \
    X(cuGraphMemFreeNodeGetParams, "cuGraphMemFreeNodeGetParams", 11040, 0)           \
    X(cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags", 11040, 0)                    \
    X(cuGraphInstantiateWithParams, "cuGraphInstantiateWithParams", 12000, 0)         \
    X(cuGraphInstantiateWithParams_ptsz, "cuGraphInstantiateWithParams", 12000, 1)    \
    X(cuGraphLaunch, "cuGraphLaunch", 10000, 0)                                       \
    X(cuGraphLaunch_ptsz, "cuGraphLaunch", 10000, 1)                                  \
    X(cuGraphExecDestroy, "cuGraphExecDestroy", 10000, 0)                             \
    X(cuDeviceGetGraphMemAttribute, "cuDeviceGetGraphMemAttribute", 11040, 0)         \
    X(cuDeviceSetGraphMemAttribute, "cuDeviceSetGraphMemAttribute", 11040, 0)         \
    X(cuDeviceGraphMemTrim, "cuDeviceGraphMemTrim", 11040, 0)                         \
    X(cuLibraryLoadData, "cuLibraryLoadData", 12000, 0)                               \
    X(cuLibraryLoadFromFile, "cuLibraryLoadFromFile", 12000, 0)                       \
    X(cuLibraryUnload, "cuLibraryUnload", 12000, 0)

struct fc_rt_driver {
    __typeof__(cuGetProcAddress_v2) *cuGetProcAddress_v2; /* from dlsym */
#define FC_FIELD(f, name, version, pt) __typeof__(f) *f;
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
/* First thing in a runtime function that needs the driver but no context:
 * records fc_rt_init()'s error as the last one and returns it. */
#define ENTER_INIT()                   \
    do {                               \
        cudaError_t e_ = fc_rt_init(); \
        if (e_)                        \
            return fc_rt_set(e_);      \
    } while (0)
/* A runtime function that is nothing but its driver call once a context is
 * current: FC_RT_FORWARD(name, (parameters), driver call with arguments).
 * cuda_runtime_api.h's prototype still checks the definition. */
#define FC_RT_FORWARD(name, params, call) \
    cudaError_t name params               \
    {                                     \
        ENTER();                          \
        return fc_rt_cu(fc_drv.call);     \
    }
cudaError_t fc_rt_set(cudaError_t e);   /* record e as the last error; returns e */
cudaError_t fc_rt_cu(CUresult r);       /* map + record a driver result */
int fc_rt_device(void);
cudaError_t fc_rt_primary(int dev, CUcontext *out); /* the runtime's hold on dev's primary context */                 /* the runtime's device for this thread */
cudaError_t fc_rt_set_device(int dev);
cudaError_t fc_rt_reset_device(int dev);
/* fc_rt_array.c: channel descriptor -> driver format and channel count;
 * -1 when the driver has no such format. */
int fc_rt_array_format(const struct cudaChannelFormatDesc *d, CUarray_format *fmt, unsigned *nch);

/* fc_rt_kernel.c: the registration and launch entry points nvcc's
 * generated code calls; NVIDIA declares them only for C++ (crt/). */
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
void __cudaUnregisterFatBinary(void **fatCubinHandle);
void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                            const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
                            dim3 *bDim, dim3 *gDim, int *wSize);
void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress, const char *deviceName,
                       int ext, size_t size, int constant, int global);
char __cudaInitModule(void **fatCubinHandle);
unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, struct CUstream_st *stream);
cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem, void *stream);
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun);
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
                               cudaStream_t stream);
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                                    size_t sharedMem, cudaStream_t stream);

/* fc_rt_stub.c: a runtime function fakecuda does not implement (the
 * generated stubs call it): one line on stderr the first time *said is 0,
 * then cudaErrorNotSupported, recorded as the last error. */
cudaError_t fc_rt_unsupported(const char *name, int *said);

#endif
