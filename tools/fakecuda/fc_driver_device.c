/* Device identity and peer access, as numba's driver binding asks for them
 * when it opens a device (cuDeviceGetUuid, cuDeviceComputeCapability) and
 * when it maps memory between devices (cuCtxEnablePeerAccess). */
#include "fc_internal.h"

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
