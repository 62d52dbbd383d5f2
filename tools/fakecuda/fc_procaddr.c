/* cuGetProcAddress: the driver's symbol table by base name.
 *
 * Each row says from which CUDA version a base name resolves to which ABI
 * function, and whether the row is the legacy-stream (L) or per-thread
 * default stream (P) variant; rows marked A have no stream semantics.  The
 * highest version <= the requested one wins; a per-thread request takes a P
 * row when one qualifies, else falls back to the legacy row, as documented. */
#include "fc_internal.h"

#include <string.h>

enum { A, L, P };
struct ent {
    const char *name;
    int ver;
    int mode;
    void *fn;
};

#define R(n, v, m, f) { n, v, m, (void *)(f) }
static const struct ent tab[] = {
    R("cuGetErrorString", 6000, A, cuGetErrorString),
    R("cuGetErrorName", 6000, A, cuGetErrorName),
    R("cuInit", 2000, A, cuInit),
    R("cuDriverGetVersion", 2020, A, cuDriverGetVersion),
    R("cuDeviceGet", 2000, A, cuDeviceGet),
    R("cuDeviceGetCount", 2000, A, cuDeviceGetCount),
    R("cuDeviceGetName", 2000, A, cuDeviceGetName),
    R("cuDeviceTotalMem", 3020, A, cuDeviceTotalMem_v2),
    R("cuDeviceGetAttribute", 2000, A, cuDeviceGetAttribute),
    R("cuDeviceCanAccessPeer", 4000, A, cuDeviceCanAccessPeer),
    R("cuCtxCreate", 2000, A, cuCtxCreate),
    R("cuCtxCreate", 3020, A, cuCtxCreate_v2),
    R("cuCtxCreate", 11040, A, cuCtxCreate_v3),
    R("cuCtxCreate", 12050, A, cuCtxCreate_v4),
    R("cuCtxDestroy", 2000, A, cuCtxDestroy),
    R("cuCtxDestroy", 4000, A, cuCtxDestroy_v2),
    R("cuCtxPushCurrent", 2000, A, cuCtxPushCurrent),
    R("cuCtxPushCurrent", 4000, A, cuCtxPushCurrent_v2),
    R("cuCtxPopCurrent", 2000, A, cuCtxPopCurrent),
    R("cuCtxPopCurrent", 4000, A, cuCtxPopCurrent_v2),
    R("cuCtxSetCurrent", 4000, A, cuCtxSetCurrent),
    R("cuCtxGetCurrent", 4000, A, cuCtxGetCurrent),
    R("cuCtxGetDevice", 2000, A, cuCtxGetDevice),
    R("cuCtxGetDevice", 13000, A, cuCtxGetDevice_v2),
    R("cuCtxSynchronize", 2000, A, cuCtxSynchronize),
    R("cuCtxSynchronize", 13000, A, cuCtxSynchronize_v2),
    R("cuCtxAttach", 2000, A, cuCtxAttach),
    R("cuCtxDetach", 2000, A, cuCtxDetach),
    R("cuCtxGetApiVersion", 3020, A, cuCtxGetApiVersion),
    R("cuDevicePrimaryCtxRetain", 7000, A, cuDevicePrimaryCtxRetain),
    R("cuDevicePrimaryCtxRelease", 7000, A, cuDevicePrimaryCtxRelease),
    R("cuDevicePrimaryCtxRelease", 11000, A, cuDevicePrimaryCtxRelease_v2),
    R("cuDevicePrimaryCtxReset", 7000, A, cuDevicePrimaryCtxReset),
    R("cuDevicePrimaryCtxReset", 11000, A, cuDevicePrimaryCtxReset_v2),
    R("cuDevicePrimaryCtxSetFlags", 7000, A, cuDevicePrimaryCtxSetFlags),
    R("cuDevicePrimaryCtxSetFlags", 11000, A, cuDevicePrimaryCtxSetFlags_v2),
    R("cuDevicePrimaryCtxGetState", 7000, A, cuDevicePrimaryCtxGetState),
    /* green contexts, at cudaTypedefs.h's versions */
    R("cuDeviceGetDevResource", 12040, A, cuDeviceGetDevResource),
    R("cuCtxGetDevResource", 12040, A, cuCtxGetDevResource),
    R("cuGreenCtxGetDevResource", 12040, A, cuGreenCtxGetDevResource),
    R("cuDevSmResourceSplitByCount", 12040, A, cuDevSmResourceSplitByCount),
    R("cuDevResourceGenerateDesc", 12040, A, cuDevResourceGenerateDesc),
    R("cuGreenCtxCreate", 12040, A, cuGreenCtxCreate),
    R("cuGreenCtxDestroy", 12040, A, cuGreenCtxDestroy),
    R("cuCtxFromGreenCtx", 12040, A, cuCtxFromGreenCtx),
    R("cuStreamGetGreenCtx", 12040, A, cuStreamGetGreenCtx),
    R("cuGreenCtxStreamCreate", 12050, A, cuGreenCtxStreamCreate),
    R("cuGreenCtxGetId", 12090, A, cuGreenCtxGetId),
    R("cuMemGetInfo", 3020, A, cuMemGetInfo_v2),
    R("cuMemAlloc", 3020, A, cuMemAlloc_v2),
    R("cuMemAllocPitch", 3020, A, cuMemAllocPitch_v2),
    R("cuMemFree", 3020, A, cuMemFree_v2),
    R("cuMemGetAddressRange", 3020, A, cuMemGetAddressRange_v2),
    R("cuMemAllocHost", 3020, A, cuMemAllocHost_v2),
    R("cuMemHostAlloc", 2020, A, cuMemHostAlloc),
    R("cuMemFreeHost", 2000, A, cuMemFreeHost),
    R("cuMemHostGetDevicePointer", 3020, A, cuMemHostGetDevicePointer_v2),
    R("cuMemHostGetFlags", 2030, A, cuMemHostGetFlags),
    R("cuMemAllocManaged", 6000, A, cuMemAllocManaged),
    R("cuMemHostRegister", 4000, A, cuMemHostRegister),
    R("cuMemHostRegister", 6050, A, cuMemHostRegister_v2),
    R("cuMemHostUnregister", 4000, A, cuMemHostUnregister),
    R("cuMemcpy", 4000, L, cuMemcpy),
    R("cuMemcpy", 7000, P, cuMemcpy_ptds),
    R("cuMemcpyAsync", 4000, L, cuMemcpyAsync),
    R("cuMemcpyAsync", 7000, P, cuMemcpyAsync_ptsz),
    R("cuMemcpyHtoD", 3020, L, cuMemcpyHtoD_v2),
    R("cuMemcpyHtoD", 7000, P, cuMemcpyHtoD_v2_ptds),
    R("cuMemcpyDtoH", 3020, L, cuMemcpyDtoH_v2),
    R("cuMemcpyDtoH", 7000, P, cuMemcpyDtoH_v2_ptds),
    R("cuMemcpyDtoD", 3020, L, cuMemcpyDtoD_v2),
    R("cuMemcpyDtoD", 7000, P, cuMemcpyDtoD_v2_ptds),
    R("cuMemcpyHtoDAsync", 3020, L, cuMemcpyHtoDAsync_v2),
    R("cuMemcpyHtoDAsync", 7000, P, cuMemcpyHtoDAsync_v2_ptsz),
    R("cuMemcpyDtoHAsync", 3020, L, cuMemcpyDtoHAsync_v2),
    R("cuMemcpyDtoHAsync", 7000, P, cuMemcpyDtoHAsync_v2_ptsz),
    R("cuMemcpyDtoDAsync", 3020, L, cuMemcpyDtoDAsync_v2),
    R("cuMemcpyDtoDAsync", 7000, P, cuMemcpyDtoDAsync_v2_ptsz),
    R("cuMemsetD8", 3020, L, cuMemsetD8_v2),
    R("cuMemsetD8", 7000, P, cuMemsetD8_v2_ptds),
    R("cuMemsetD16", 3020, L, cuMemsetD16_v2),
    R("cuMemsetD16", 7000, P, cuMemsetD16_v2_ptds),
    R("cuMemsetD32", 3020, L, cuMemsetD32_v2),
    R("cuMemsetD32", 7000, P, cuMemsetD32_v2_ptds),
    R("cuMemsetD8Async", 3020, L, cuMemsetD8Async),
    R("cuMemsetD8Async", 7000, P, cuMemsetD8Async_ptsz),
    R("cuMemsetD16Async", 3020, L, cuMemsetD16Async),
    R("cuMemsetD16Async", 7000, P, cuMemsetD16Async_ptsz),
    R("cuMemsetD32Async", 3020, L, cuMemsetD32Async),
    R("cuMemsetD32Async", 7000, P, cuMemsetD32Async_ptsz),
    R("cuArrayCreate", 3020, A, cuArrayCreate_v2),
    R("cuArray3DCreate", 3020, A, cuArray3DCreate_v2),
    R("cuArray3DGetDescriptor", 3020, A, cuArray3DGetDescriptor_v2),
    R("cuArrayDestroy", 2000, A, cuArrayDestroy),
    R("cuModuleLoad", 2000, A, cuModuleLoad),
    R("cuModuleLoadData", 2000, A, cuModuleLoadData),
    R("cuModuleLoadDataEx", 2010, A, cuModuleLoadDataEx),
    R("cuModuleLoadFatBinary", 2000, A, cuModuleLoadFatBinary),
    R("cuModuleUnload", 2000, A, cuModuleUnload),
    R("cuLibraryLoadData", 12000, A, cuLibraryLoadData),
    R("cuLibraryLoadFromFile", 12000, A, cuLibraryLoadFromFile),
    R("cuLibraryUnload", 12000, A, cuLibraryUnload),
    R("cuMipmappedArrayCreate", 5000, A, cuMipmappedArrayCreate),
    R("cuMipmappedArrayDestroy", 5000, A, cuMipmappedArrayDestroy),
    R("cuMemGetAllocationGranularity", 10020, A, cuMemGetAllocationGranularity),
    R("cuMemCreate", 10020, A, cuMemCreate),
    R("cuMemRelease", 10020, A, cuMemRelease),
    R("cuMemAddressReserve", 10020, A, cuMemAddressReserve),
    R("cuMemAddressFree", 10020, A, cuMemAddressFree),
    R("cuMemMap", 10020, A, cuMemMap),
    R("cuMemUnmap", 10020, A, cuMemUnmap),
    R("cuMemSetAccess", 10020, A, cuMemSetAccess),
    R("cuMemRetainAllocationHandle", 11000, A, cuMemRetainAllocationHandle),
    R("cuMemGetAllocationPropertiesFromHandle", 10020, A, cuMemGetAllocationPropertiesFromHandle),
    R("cuMemExportToShareableHandle", 10020, A, cuMemExportToShareableHandle),
    R("cuMemImportFromShareableHandle", 10020, A, cuMemImportFromShareableHandle),
    R("cuMulticastCreate", 12010, A, cuMulticastCreate),
    R("cuMulticastAddDevice", 12010, A, cuMulticastAddDevice),
    R("cuMulticastBindMem", 12010, A, cuMulticastBindMem),
    R("cuMulticastBindAddr", 12010, A, cuMulticastBindAddr),
    R("cuMulticastUnbind", 12010, A, cuMulticastUnbind),
    R("cuMulticastGetGranularity", 12010, A, cuMulticastGetGranularity),
    R("cuMemAllocAsync", 11020, L, cuMemAllocAsync),
    R("cuMemAllocAsync", 11020, P, cuMemAllocAsync_ptsz),
    R("cuMemFreeAsync", 11020, L, cuMemFreeAsync),
    R("cuMemFreeAsync", 11020, P, cuMemFreeAsync_ptsz),
    R("cuMemAllocFromPoolAsync", 11020, L, cuMemAllocFromPoolAsync),
    R("cuMemAllocFromPoolAsync", 11020, P, cuMemAllocFromPoolAsync_ptsz),
    R("cuMemPoolCreate", 11020, A, cuMemPoolCreate),
    R("cuMemGetDefaultMemPool", 13000, A, cuMemGetDefaultMemPool),
    R("cuMemGetMemPool", 13000, A, cuMemGetMemPool),
    R("cuMemSetMemPool", 13000, A, cuMemSetMemPool),
    R("cuMemPoolDestroy", 11020, A, cuMemPoolDestroy),
    R("cuMemPoolTrimTo", 11020, A, cuMemPoolTrimTo),
    R("cuMemPoolSetAttribute", 11020, A, cuMemPoolSetAttribute),
    R("cuMemPoolGetAttribute", 11020, A, cuMemPoolGetAttribute),
    R("cuDeviceGetDefaultMemPool", 11020, A, cuDeviceGetDefaultMemPool),
    R("cuDeviceGetMemPool", 11020, A, cuDeviceGetMemPool),
    R("cuDeviceSetMemPool", 11020, A, cuDeviceSetMemPool),
    R("cuIpcGetMemHandle", 4010, A, cuIpcGetMemHandle),
    R("cuIpcOpenMemHandle", 4010, A, cuIpcOpenMemHandle),
    R("cuIpcOpenMemHandle", 11000, A, cuIpcOpenMemHandle_v2),
    R("cuIpcCloseMemHandle", 4010, A, cuIpcCloseMemHandle),
    R("cuMemPoolExportToShareableHandle", 11020, A, cuMemPoolExportToShareableHandle),
    R("cuMemPoolImportFromShareableHandle", 11020, A, cuMemPoolImportFromShareableHandle),
    R("cuMemPoolExportPointer", 11020, A, cuMemPoolExportPointer),
    R("cuMemPoolImportPointer", 11020, A, cuMemPoolImportPointer),
    R("cuImportExternalMemory", 10000, A, cuImportExternalMemory),
    R("cuDestroyExternalMemory", 10000, A, cuDestroyExternalMemory),
    R("cuExternalMemoryGetMappedBuffer", 10000, A, cuExternalMemoryGetMappedBuffer),
    R("cuExternalMemoryGetMappedMipmappedArray", 10000, A, cuExternalMemoryGetMappedMipmappedArray),
    R("cuPointerGetAttribute", 4000, A, cuPointerGetAttribute),
    R("cuPointerGetAttributes", 7000, A, cuPointerGetAttributes),
    R("cuStreamCreate", 2000, A, cuStreamCreate),
    R("cuStreamCreateWithPriority", 5050, A, cuStreamCreateWithPriority),
    R("cuStreamGetPriority", 5050, L, cuStreamGetPriority),
    R("cuStreamGetPriority", 7000, P, cuStreamGetPriority_ptsz),
    R("cuCtxGetStreamPriorityRange", 5050, A, cuCtxGetStreamPriorityRange),
    R("cuStreamWriteValue32", 8000, L, cuStreamWriteValue32),
    R("cuStreamWriteValue32", 8000, P, cuStreamWriteValue32_ptsz),
    R("cuStreamWriteValue32", 11070, L, cuStreamWriteValue32_v2),
    R("cuStreamWriteValue32", 11070, P, cuStreamWriteValue32_v2_ptsz),
    /* events, callbacks, host functions (fc_driver_event.c) */
    R("cuEventCreate", 2000, A, cuEventCreate),
    R("cuEventRecord", 2000, L, cuEventRecord),
    R("cuEventRecord", 7000, P, cuEventRecord_ptsz),
    R("cuEventRecordWithFlags", 11010, L, cuEventRecordWithFlags),
    R("cuEventRecordWithFlags", 11010, P, cuEventRecordWithFlags_ptsz),
    R("cuEventQuery", 2000, A, cuEventQuery),
    R("cuEventSynchronize", 2000, A, cuEventSynchronize),
    R("cuEventDestroy", 2000, A, cuEventDestroy),
    R("cuEventDestroy", 4000, A, cuEventDestroy_v2),
    R("cuEventElapsedTime", 2000, A, cuEventElapsedTime),
    R("cuEventElapsedTime", 12080, A, cuEventElapsedTime_v2),
    R("cuStreamWaitEvent", 3020, L, cuStreamWaitEvent),
    R("cuStreamWaitEvent", 7000, P, cuStreamWaitEvent_ptsz),
    R("cuStreamAddCallback", 5000, L, cuStreamAddCallback),
    R("cuStreamAddCallback", 7000, P, cuStreamAddCallback_ptsz),
    R("cuLaunchHostFunc", 10000, L, cuLaunchHostFunc),
    R("cuLaunchHostFunc", 10000, P, cuLaunchHostFunc_ptsz),
    R("cuDeviceGetPCIBusId", 4010, A, cuDeviceGetPCIBusId),
    R("cuDeviceGetUuid", 9020, A, cuDeviceGetUuid),
    R("cuDeviceGetUuid", 11040, A, cuDeviceGetUuid_v2),
    R("cuCtxEnablePeerAccess", 4000, A, cuCtxEnablePeerAccess),
    R("cuCtxDisablePeerAccess", 4000, A, cuCtxDisablePeerAccess),
    R("cuStreamDestroy", 2000, A, cuStreamDestroy),
    R("cuStreamDestroy", 4000, A, cuStreamDestroy_v2),
    R("cuStreamSynchronize", 2000, L, cuStreamSynchronize),
    R("cuStreamSynchronize", 7000, P, cuStreamSynchronize_ptsz),
    R("cuStreamGetDevice", 12080, L, cuStreamGetDevice),
    R("cuStreamGetDevice", 12080, P, cuStreamGetDevice_ptsz),
    R("cuStreamQuery", 2000, L, cuStreamQuery),
    R("cuStreamQuery", 7000, P, cuStreamQuery_ptsz),
    R("cuStreamBeginCapture", 10000, L, cuStreamBeginCapture),
    R("cuStreamBeginCapture", 10000, P, cuStreamBeginCapture_ptsz),
    R("cuStreamBeginCapture", 10010, L, cuStreamBeginCapture_v2),
    R("cuStreamBeginCapture", 10010, P, cuStreamBeginCapture_v2_ptsz),
    R("cuStreamEndCapture", 10000, L, cuStreamEndCapture),
    R("cuStreamEndCapture", 10000, P, cuStreamEndCapture_ptsz),
    R("cuStreamIsCapturing", 10000, L, cuStreamIsCapturing),
    R("cuStreamIsCapturing", 10000, P, cuStreamIsCapturing_ptsz),
    R("cuGraphCreate", 10000, A, cuGraphCreate),
    R("cuGraphDestroy", 10000, A, cuGraphDestroy),
    R("cuGraphAddEmptyNode", 10000, A, cuGraphAddEmptyNode),
    R("cuGraphAddMemAllocNode", 11040, A, cuGraphAddMemAllocNode),
    R("cuGraphAddMemFreeNode", 11040, A, cuGraphAddMemFreeNode),
    R("cuGraphAddNode", 12020, A, cuGraphAddNode),
    R("cuGraphAddNode", 12030, A, cuGraphAddNode_v2),
    R("cuGraphGetNodes", 10000, A, cuGraphGetNodes),
    R("cuGraphNodeGetType", 10000, A, cuGraphNodeGetType),
    R("cuGraphMemAllocNodeGetParams", 11040, A, cuGraphMemAllocNodeGetParams),
    R("cuGraphMemFreeNodeGetParams", 11040, A, cuGraphMemFreeNodeGetParams),
    R("cuGraphInstantiateWithFlags", 11040, A, cuGraphInstantiateWithFlags),
    R("cuGraphInstantiate", 10000, A, cuGraphInstantiate), /* the 5-argument ABIs */
    R("cuGraphInstantiate", 11000, A, cuGraphInstantiate_v2),
    R("cuGraphInstantiate", 12000, A, cuGraphInstantiateWithFlags),
    R("cuGraphInstantiateWithParams", 12000, L, cuGraphInstantiateWithParams),
    R("cuGraphInstantiateWithParams", 12000, P, cuGraphInstantiateWithParams_ptsz),
    R("cuGraphLaunch", 10000, L, cuGraphLaunch),
    R("cuGraphLaunch", 10000, P, cuGraphLaunch_ptsz),
    R("cuGraphExecDestroy", 10000, A, cuGraphExecDestroy),
    R("cuDeviceGetGraphMemAttribute", 11040, A, cuDeviceGetGraphMemAttribute),
    R("cuDeviceSetGraphMemAttribute", 11040, A, cuDeviceSetGraphMemAttribute),
    R("cuDeviceGraphMemTrim", 11040, A, cuDeviceGraphMemTrim),
    R("cuGetProcAddress", 11030, A, cuGetProcAddress),
    R("cuGetProcAddress", 12000, A, cuGetProcAddress_v2),
};
#undef R

static CUresult lookup(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                       CUdriverProcAddressQueryResult *status)
{
    if (!symbol || !pfn || cudaVersion > FC_DRIVER_VERSION ||
        (flags & ~(cuuint64_t)(CU_GET_PROC_ADDRESS_LEGACY_STREAM | CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)))
        return CUDA_ERROR_INVALID_VALUE;
    int per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
    const struct ent *best = NULL, *best_pt = NULL;
    int named = 0;
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        const struct ent *e = &tab[i];
        if (strcmp(e->name, symbol) != 0)
            continue;
        named = 1;
        if (e->ver > cudaVersion)
            continue;
        if (e->mode == P) {
            if (per_thread && (!best_pt || e->ver > best_pt->ver))
                best_pt = e;
        } else if (!best || e->ver > best->ver) {
            best = e;
        }
    }
    const struct ent *e = best_pt ? best_pt : best;
    if (!e) {
        *pfn = NULL;
        if (status)
            *status = named ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        return CUDA_ERROR_NOT_FOUND;
    }
    *pfn = e->fn;
    if (status)
        *status = CU_GET_PROC_ADDRESS_SUCCESS;
    return CUDA_SUCCESS;
}

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *symbolStatus)
{
    return lookup(symbol, pfn, cudaVersion, flags, symbolStatus);
}

/* The pre-12.0 ABI: same lookup, no status out-parameter. */
CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
    return lookup(symbol, pfn, cudaVersion, flags, NULL);
}
