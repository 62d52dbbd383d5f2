/* Device identity and peer access, as numba's driver binding asks for them
 * when it opens a device (cuDeviceGetUuid, cuDeviceComputeCapability) and
 * when it maps memory between devices (cuCtxEnablePeerAccess). */
#include "fc_internal.h"
#include "fc_gpu.h"

#include <stdio.h>
#include <string.h>

/* A fixed UUID per ordinal, so two devices never look like the same GPU
 * (frameworks key caches by UUID). */
static CUresult device_uuid(CUuuid *uuid, CUdevice dev)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!uuid)
        return CUDA_ERROR_INVALID_VALUE;
    if (!fc_dev_get(dev))
        return CUDA_ERROR_INVALID_DEVICE;
    static const char tag[] = "fakecuda-dev";
    memset(uuid->bytes, 0, sizeof uuid->bytes);
    memcpy(uuid->bytes, tag, sizeof tag - 1);
    uuid->bytes[15] = (char)dev;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev) { return device_uuid(uuid, dev); }
CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev) { return device_uuid(uuid, dev); }

/* An H100 SXM's attributes (what deviceQuery prints for one), so that a
 * framework sizing its launches or filling cudaDeviceProp gets real
 * numbers; anything not listed reads as 0, "absent". */
static const struct {
    CUdevice_attribute attr;
    int value;
} h100[] = {
    {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1024},
    {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, 1024},
    {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, 1024},
    {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 64},
    {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, 2147483647},
    {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, 65535},
    {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, 65535},
    {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 49152},
    {CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY, 65536},
    {CU_DEVICE_ATTRIBUTE_WARP_SIZE, 32},
    {CU_DEVICE_ATTRIBUTE_MAX_PITCH, 2147483647},
    {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, 65536},
    {CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 1980000},
    {CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT, 512},
    {CU_DEVICE_ATTRIBUTE_GPU_OVERLAP, 1},
    {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 132},
    {CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, 1},
    {CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS, 1},
    {CU_DEVICE_ATTRIBUTE_ECC_ENABLED, 1},
    {CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, 3},
    {CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, 1},
    {CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, 2619000},
    {CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, 5120},
    {CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, 52428800},
    {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, 2048},
    {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 9},
    {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0},
    {CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED, 1},
    {CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED, 1},
    {CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED, 1},
    {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, 233472},
    {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, 65536},
    {CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, 1},
    {CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, 1},
    {CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED, 1},
    {CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM, 1},
    {CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, 1},
    {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 232448},
    {CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, 32},
    {CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE, 82837504},
    {CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE, 134213632},
    {CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, 1024},
    {CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED, 1},
    {CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED, 1},
    {CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, 1},
    {CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR},
    {CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 1},
    {CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, 1},
    {CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, 1}, /* fc_driver_multicast.c */
    {CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, 1},
    {CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED, 1},
    {CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED, 1},
    {CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED, 1},
    {CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT, 32},
    {CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, 0},
    {CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, 0},
    {CU_DEVICE_ATTRIBUTE_INTEGRATED, 0},
};

/* A card profile (FAKECUDA_GPU) replaces what tells cards apart to a
 * framework: compute capability, SM count, L2.  The other attributes stay
 * the H100's (docs/plan.md says so). */
static void profile_attribute(int *pi, CUdevice_attribute attrib)
{
    const struct fc_gpu *gpu = fc_gpu_profile();
    if (!gpu)
        return;
    if (attrib == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
        *pi = gpu->cc_major;
    else if (attrib == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
        *pi = gpu->cc_minor;
    else if (attrib == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        *pi = gpu->sms;
    else if (attrib == CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)
        *pi = gpu->l2_bytes;
}

CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pi)
        return CUDA_ERROR_INVALID_VALUE;
    if (!fc_dev_get(dev))
        return CUDA_ERROR_INVALID_DEVICE;
    *pi = 0;
    if (attrib == CU_DEVICE_ATTRIBUTE_PCI_BUS_ID)
        *pi = dev + 1; /* bus 0 is the host bridge's */
    for (size_t i = 0; i < sizeof h100 / sizeof h100[0]; i++)
        if (h100[i].attr == attrib)
            *pi = h100[i].value;
    profile_attribute(pi, attrib);
    return CUDA_SUCCESS;
}

/* "domain:bus:device.function", from the PCI attributes. */
CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)
{
    int domain, bus, device;
    CUresult r = cuDeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, dev);
    if (r)
        return r;
    if (!pciBusId || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    cuDeviceGetAttribute(&domain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, dev);
    cuDeviceGetAttribute(&device, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, dev);
    snprintf(pciBusId, (size_t)len, "%08x:%02x:%02x.0", (unsigned)domain, (unsigned)bus, (unsigned)device);
    return CUDA_SUCCESS;
}

/* Deprecated, but still what numba 0.56 calls; answers like the
 * COMPUTE_CAPABILITY attributes. */
CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice dev)
{
    if (!major || !minor)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = cuDeviceGetAttribute(major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    if (r == CUDA_SUCCESS)
        r = cuDeviceGetAttribute(minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    return r;
}

/* Peer access: every device range is ordinary host memory here, so access
 * always works; only the documented refusals are kept (no current context,
 * a bad peer, the context's own device, enabling twice). */
static unsigned long long peer_on[FC_MAX_DEVICES]; /* bit p: dev may access p (under fc_lock) */

static CUresult peer_change(CUcontext peer, unsigned flags, int enable)
{
    struct fc_ctx *c;
    CUresult r = fc_cur_ctx(&c);
    if (r)
        return r;
    if (enable && flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    struct fc_ctx *p = (struct fc_ctx *)peer;
    fc_lock();
    if (!fc_ctx_valid(p)) {
        fc_unlock();
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    if (p->dev == c->dev) {
        fc_unlock();
        return CUDA_ERROR_INVALID_DEVICE;
    }
    unsigned long long bit = 1ull << p->dev;
    int on = (peer_on[c->dev] & bit) != 0;
    if (enable && on)
        r = CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
    else if (!enable && !on)
        r = CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
    else if (enable)
        peer_on[c->dev] |= bit;
    else
        peer_on[c->dev] &= ~bit;
    fc_unlock();
    return r;
}

CUresult cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags)
{
    return peer_change(peerContext, Flags, 1);
}

CUresult cuCtxDisablePeerAccess(CUcontext peerContext) { return peer_change(peerContext, 0, 0); }
