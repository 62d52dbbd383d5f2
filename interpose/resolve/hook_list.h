/* Every intercepted symbol, once.  hooks/hook_table.c builds the name -> hook map
 * from this list for the dlsym and cuGetProcAddress paths. */
#ifndef GL_HOOK_LIST_H
#define GL_HOOK_LIST_H

#define GL_RUNTIME_HOOKS(X)                                                      \
    X(cudaMalloc) X(cudaFree)                                                    \
    X(cudaMallocAsync) X(cudaMallocAsync_ptsz)                                   \
    X(cudaFreeAsync) X(cudaFreeAsync_ptsz)                                       \
    X(cudaMallocFromPoolAsync) X(cudaMallocFromPoolAsync_ptsz)                   \
    X(cudaMallocManaged) X(cudaMallocPitch) X(cudaMalloc3D)                      \
    X(cudaMallocArray) X(cudaMalloc3DArray) X(cudaMallocMipmappedArray)          \
    X(cudaFreeArray) X(cudaFreeMipmappedArray)                                   \
    X(cudaMallocHost) X(cudaHostAlloc) X(cudaFreeHost)                           \
    X(cudaHostRegister) X(cudaHostUnregister)                                    \
    X(cudaIpcOpenMemHandle) X(cudaIpcCloseMemHandle) X(cudaMemPoolImportPointer) \
    X(cudaGraphAddMemAllocNode)                                                  \
    X(cudaStreamBeginCapture) X(cudaStreamBeginCapture_ptsz)                    \
    X(cudaStreamBeginCaptureToGraph) X(cudaStreamBeginCaptureToGraph_ptsz)      \
    X(cudaImportExternalMemory) X(cudaDestroyExternalMemory)                     \
    X(cudaExternalMemoryGetMappedBuffer) X(cudaExternalMemoryGetMappedMipmappedArray) \
    X(cudaDeviceReset) X(cudaSetDevice)                                          \
    X(cudaGetDeviceCount)                                                        \
    X(cudaGetDriverEntryPoint) X(cudaGetDriverEntryPointByVersion)              \
    X(cudaGetDriverEntryPoint_ptsz) X(cudaGetDriverEntryPointByVersion_ptsz)

#define GL_DRIVER_HOOKS(X)                                                       \
    X(cuMemAlloc_v2) X(cuMemFree_v2) X(cuMemAllocPitch_v2) X(cuMemAllocManaged)  \
    X(cuMemAllocHost_v2) X(cuMemHostAlloc) X(cuMemFreeHost)                      \
    X(cuMemHostRegister_v2) X(cuMemHostUnregister)                               \
    X(cuMemAllocAsync) X(cuMemAllocAsync_ptsz)                                   \
    X(cuMemFreeAsync) X(cuMemFreeAsync_ptsz)                                     \
    X(cuMemAllocFromPoolAsync) X(cuMemAllocFromPoolAsync_ptsz)                   \
    X(cuMemPoolCreate) X(cuMemPoolDestroy)                                       \
    X(cuMemGetDefaultMemPool) X(cuMemGetMemPool)                                 \
    X(cuArrayCreate_v2) X(cuArray3DCreate_v2) X(cuArrayDestroy)                  \
    X(cuMipmappedArrayCreate) X(cuMipmappedArrayDestroy)                         \
    X(cuCtxDestroy_v2) X(cuCtxDestroy) X(cuDevicePrimaryCtxReset_v2)             \
    X(cuDevicePrimaryCtxRetain)                                                  \
    X(cuDevicePrimaryCtxRelease_v2)                                              \
    X(cuDevicePrimaryCtxReset) X(cuDevicePrimaryCtxRelease) X(cuCtxDetach)      \
    X(cuGreenCtxCreate) X(cuCtxFromGreenCtx) X(cuGreenCtxDestroy)                \
    X(cuMemCreate) X(cuMemRelease) X(cuMemAddressReserve) X(cuMemAddressFree)    \
    X(cuMemMap) X(cuMemUnmap) X(cuMemRetainAllocationHandle)                     \
    X(cuMemImportFromShareableHandle) X(cuMulticastCreate)                       \
    X(cuModuleLoad) X(cuModuleLoadData) X(cuModuleLoadDataEx)                    \
    X(cuModuleLoadFatBinary) X(cuModuleUnload)                                   \
    X(cuLibraryLoadData) X(cuLibraryLoadFromFile) X(cuLibraryUnload)             \
    X(cuIpcOpenMemHandle_v2) X(cuIpcOpenMemHandle) X(cuIpcCloseMemHandle)        \
    X(cuMemPoolImportPointer)                                                    \
    X(cuImportExternalMemory) X(cuDestroyExternalMemory)                         \
    X(cuExternalMemoryGetMappedBuffer) X(cuExternalMemoryGetMappedMipmappedArray) \
    X(cuGraphAddMemAllocNode) X(cuGraphAddNode) X(cuGraphAddNode_v2)             \
    X(cuGraphInstantiate) X(cuGraphInstantiate_v2)                              \
    X(cuGraphInstantiateWithFlags) X(cuGraphInstantiateWithParams)               \
    X(cuGraphInstantiateWithParams_ptsz) X(cuGraphLaunch) X(cuGraphLaunch_ptsz)  \
    X(cuGraphExecDestroy) X(cuGraphDestroy)                                      \
    X(cuStreamBeginCapture) X(cuStreamBeginCapture_ptsz)                        \
    X(cuStreamBeginCapture_v2) X(cuStreamBeginCapture_v2_ptsz)                  \
    X(cuStreamBeginCaptureToGraph) X(cuStreamBeginCaptureToGraph_ptsz)          \
    X(cuGetProcAddress) X(cuGetProcAddress_v2)                                   \
    X(cuCtxSetCurrent) X(cuCtxPushCurrent) X(cuCtxPushCurrent_v2)                \
    X(cuCtxPopCurrent) X(cuCtxPopCurrent_v2)                                     \
    X(cuCtxCreate_v2) X(cuCtxCreate_v3) X(cuCtxCreate_v4)

#define GL_ALL_HOOKS(X) GL_RUNTIME_HOOKS(X) GL_DRIVER_HOOKS(X)

/* Real functions the library calls that it does not hook (queries made on
 * the hook path). */
#define GL_AUX_REALS(X)                                                          \
    X(cudaGetDevice) X(cudaRuntimeGetVersion)                                    \
    X(cuCtxGetDevice) X(cuCtxGetCurrent) X(cuPointerGetAttribute) X(cuMemGetInfo_v2)   \
    X(cuDeviceGetDefaultMemPool) X(cuMemPoolGetAttribute)                             \
    X(cuMemGetAddressRange_v2)                                                   \
    X(cuStreamIsCapturing) X(cuStreamIsCapturing_ptsz) X(cuGraphGetNodes)        \
    X(cuGraphNodeGetType) X(cuGraphMemAllocNodeGetParams) X(cuGraphMemFreeNodeGetParams) \
    X(cuMemGetAllocationPropertiesFromHandle) X(cuDevicePrimaryCtxGetState)      \
    X(cuPointerGetAttributes) X(cuStreamGetDevice) X(cuCtxGetApiVersion)        \
    X(cuDeviceGetGraphMemAttribute) X(cuDeviceGetCount)

/* A dense index for every real-function cache: per-caller scopes keep one
 * pointer per index (resolve.c). */
enum gl_real_id {
#define GL_REAL_ID(n) GL_REAL_ID_##n,
    GL_ALL_HOOKS(GL_REAL_ID) GL_AUX_REALS(GL_REAL_ID)
#undef GL_REAL_ID
    GL_REAL_COUNT
};

#endif
