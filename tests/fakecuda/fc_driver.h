/* Driver-API steps the fakecuda self-tests share (after fc_check.h):
 * static inline, so that a test that uses one is not warned about the
 * other. */
#ifndef FC_DRIVER_H
#define FC_DRIVER_H

#include <cuda.h>

#include "fc_check.h"

/* Device memory free on the current context's device, as cuMemGetInfo
 * says: what a test compares before and after, to the byte. */
static inline size_t free_mem(void)
{
    size_t f, t;
    EQ(cuMemGetInfo(&f, &t), CUDA_SUCCESS);
    return f;
}

/* Makes device 0's primary context current, as the runtime would: each
 * process of the IPC tests does this first. */
static inline void use_primary_context(void)
{
    CUcontext c;
    EQ(cuInit(0), CUDA_SUCCESS);
    EQ(cuDevicePrimaryCtxRetain(&c, 0), CUDA_SUCCESS);
    EQ(cuCtxSetCurrent(c), CUDA_SUCCESS);
}

#endif
