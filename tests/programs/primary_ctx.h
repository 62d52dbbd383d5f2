/* How the driver-API test programs start on a device (after cuInit): its
 * primary context retained and made current, as the runtime would, each
 * step checked (cuda_check.h).  Static inline: each program is one source
 * (tests/rules.mk). */
#ifndef PRIMARY_CTX_H
#define PRIMARY_CTX_H

#include <cuda.h>

#include "cuda_check.h"

/* Device ORDINAL's primary context, retained and current; returns the
 * device. */
static inline CUdevice use_primary(int ordinal)
{
    CUdevice dev;
    CUcontext ctx;
    check(cuDeviceGet(&dev, ordinal), "cuDeviceGet");
    check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    return dev;
}

#endif
