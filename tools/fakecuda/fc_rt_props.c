/* Runtime: what a device is (cudaGetDeviceProperties, attributes, PCI bus
 * id) and peer access.  As in NVIDIA's runtime, the properties are read from
 * the driver's attributes, one cuDeviceGetAttribute each, so the driver's
 * table (fc_driver_device.c) is the one place the numbers live. */
#include "fc_rt.h"

#include <string.h>

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    ENTER_INIT();
    if (!value)
        return fc_rt_set(cudaErrorInvalidValue);
    /* cudaDevAttr* and CU_DEVICE_ATTRIBUTE_* share their numbers. */
    CUresult r = fc_drv.cuDeviceGetAttribute(value, (CUdevice_attribute)attr, device);
    return r == CUDA_ERROR_INVALID_DEVICE ? fc_rt_set(cudaErrorInvalidDevice) : fc_rt_cu(r);
}

static int attr(CUdevice dev, CUdevice_attribute a)
{
    int v = 0;
    fc_drv.cuDeviceGetAttribute(&v, a, dev);
    return v;
}

static void fill_limits(struct cudaDeviceProp *p, CUdevice d)
{
    p->maxThreadsPerBlock = attr(d, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    p->maxThreadsDim[0] = attr(d, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
    p->maxThreadsDim[1] = attr(d, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
    p->maxThreadsDim[2] = attr(d, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
    p->maxGridSize[0] = attr(d, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
    p->maxGridSize[1] = attr(d, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
    p->maxGridSize[2] = attr(d, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
    p->sharedMemPerBlock = (size_t)attr(d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    p->sharedMemPerBlockOptin = (size_t)attr(d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    p->sharedMemPerMultiprocessor = (size_t)attr(d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    p->reservedSharedMemPerBlock = (size_t)attr(d, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
    p->regsPerBlock = attr(d, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
    p->regsPerMultiprocessor = attr(d, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
    p->warpSize = attr(d, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    p->memPitch = (size_t)attr(d, CU_DEVICE_ATTRIBUTE_MAX_PITCH);
    p->totalConstMem = (size_t)attr(d, CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY);
    p->multiProcessorCount = attr(d, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    p->maxThreadsPerMultiProcessor = attr(d, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    p->maxBlocksPerMultiProcessor = attr(d, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
    p->l2CacheSize = attr(d, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    p->persistingL2CacheMaxSize = attr(d, CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE);
    p->accessPolicyMaxWindowSize = attr(d, CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE);
    p->memoryBusWidth = attr(d, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
    p->textureAlignment = (size_t)attr(d, CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT);
    p->texturePitchAlignment = (size_t)attr(d, CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT);
    p->asyncEngineCount = attr(d, CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT);
}

static void fill_capabilities(struct cudaDeviceProp *p, CUdevice d)
{
    p->major = attr(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    p->minor = attr(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    p->integrated = attr(d, CU_DEVICE_ATTRIBUTE_INTEGRATED);
    p->canMapHostMemory = attr(d, CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY);
    p->concurrentKernels = attr(d, CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS);
    p->ECCEnabled = attr(d, CU_DEVICE_ATTRIBUTE_ECC_ENABLED);
    p->pciBusID = attr(d, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
    p->pciDeviceID = attr(d, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID);
    p->pciDomainID = attr(d, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID);
    p->unifiedAddressing = attr(d, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING);
    p->streamPrioritiesSupported = attr(d, CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED);
    p->globalL1CacheSupported = attr(d, CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED);
    p->localL1CacheSupported = attr(d, CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED);
    p->managedMemory = attr(d, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY);
    p->concurrentManagedAccess = attr(d, CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS);
    p->computePreemptionSupported = attr(d, CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED);
    p->canUseHostPointerForRegisteredMem = attr(d, CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM);
    p->cooperativeLaunch = attr(d, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH);
    p->hostRegisterSupported = attr(d, CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED);
    p->hostRegisterReadOnlySupported = attr(d, CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED);
    p->memoryPoolsSupported = attr(d, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED);
    p->memoryPoolSupportedHandleTypes = (unsigned)attr(d, CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES);
    p->timelineSemaphoreInteropSupported = attr(d, CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED);
    p->deferredMappingCudaArraySupported = attr(d, CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED);
    p->ipcEventSupported = attr(d, CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED);
    p->clusterLaunch = attr(d, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH);
    p->deviceNumaId = -1;
    p->hostNumaId = -1;
}

/* CUDA 13's name (12.x had the same struct as cudaGetDeviceProperties_v2). */
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    ENTER_INIT();
    if (!prop)
        return fc_rt_set(cudaErrorInvalidValue);
    struct cudaDeviceProp p;
    memset(&p, 0, sizeof p);
    CUresult r = fc_drv.cuDeviceGetName(p.name, (int)sizeof p.name, device);
    if (r == CUDA_ERROR_INVALID_DEVICE)
        return fc_rt_set(cudaErrorInvalidDevice);
    if (r)
        return fc_rt_cu(r);
    fc_drv.cuDeviceGetUuid((CUuuid *)&p.uuid, device);
    fc_drv.cuDeviceTotalMem_v2(&p.totalGlobalMem, device);
    fill_limits(&p, device);
    fill_capabilities(&p, device);
    *prop = p;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device)
{
    ENTER_INIT();
    CUresult r = fc_drv.cuDeviceGetPCIBusId(pciBusId, len, device);
    return r == CUDA_ERROR_INVALID_DEVICE ? fc_rt_set(cudaErrorInvalidDevice) : fc_rt_cu(r);
}

cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice)
{
    ENTER_INIT();
    CUresult r = fc_drv.cuDeviceCanAccessPeer(canAccessPeer, device, peerDevice);
    return r == CUDA_ERROR_INVALID_DEVICE ? fc_rt_set(cudaErrorInvalidDevice) : fc_rt_cu(r);
}

/* The current device's context gains access to the peer's primary context
 * (the one the runtime would use there). */
cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags)
{
    ENTER();
    CUcontext peer;
    cudaError_t e = fc_rt_primary(peerDevice, &peer);
    if (e)
        return e;
    return fc_rt_cu(fc_drv.cuCtxEnablePeerAccess(peer, flags));
}

FC_RT_FORWARD(cudaDeviceGetStreamPriorityRange, (int *leastPriority, int *greatestPriority),
              cuCtxGetStreamPriorityRange(leastPriority, greatestPriority))
