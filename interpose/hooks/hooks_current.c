/* The calls that change a thread's current device or context, hooked so that
 * the device of each runtime allocation is known without asking
 * cudaGetDevice on every event (cuda/where.h).  They record nothing and
 * start no tracking; each acts after its real call, at any depth (the
 * runtime's own driver calls included) and whether or not tracking is on, so
 * the per-thread device is right after a detach and a later attach too. */
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "cuda/where.h"
#include "hooks/hook.h"

#define NO_RUNTIME cudaErrorInitializationError
#define NO_DRIVER CUDA_ERROR_NOT_INITIALIZED

/* A successful cudaSetDevice makes the device's primary context current:
 * the runtime's device is then `device`.  A failed one may have changed
 * something before failing: forgotten, asked again. */
GL_HOOK(cudaError_t, cudaSetDevice, (int device))
{
    GL_REAL_OR_RETURN(real, cudaSetDevice, NO_RUNTIME);
    uint32_t epoch = gl_where_device_epoch();
    cudaError_t rc = real(device);
    if (rc == cudaSuccess)
        gl_where_device_set(device, epoch);
    else
        gl_where_device_forget();
    return rc;
}

/* The driver's context calls: the thread's current context, and with it the
 * runtime's device, may have changed.  Forgotten whatever the result. */
#define FORGET_BODY(name, call)               \
    GL_REAL_OR_RETURN(real, name, NO_DRIVER); \
    CUresult rc = call;                       \
    gl_where_device_forget();                 \
    return rc

GL_HOOK(CUresult, cuCtxSetCurrent, (CUcontext ctx))
{
    FORGET_BODY(cuCtxSetCurrent, real(ctx));
}

GL_HOOK(CUresult, cuCtxPushCurrent_v2, (CUcontext ctx))
{
    FORGET_BODY(cuCtxPushCurrent_v2, real(ctx));
}

/* The pre-4.0 ABI: same arguments (resolve/entry_abi.c hands it out below
 * version 4000). */
GL_HOOK(CUresult, cuCtxPushCurrent, (CUcontext ctx))
{
    FORGET_BODY(cuCtxPushCurrent, real(ctx));
}

GL_HOOK(CUresult, cuCtxPopCurrent_v2, (CUcontext *pctx))
{
    FORGET_BODY(cuCtxPopCurrent_v2, real(pctx));
}

GL_HOOK(CUresult, cuCtxPopCurrent, (CUcontext *pctx))
{
    FORGET_BODY(cuCtxPopCurrent, real(pctx));
}

/* A created context is pushed current. */
GL_HOOK(CUresult, cuCtxCreate_v2, (CUcontext *pctx, unsigned int flags, CUdevice dev))
{
    FORGET_BODY(cuCtxCreate_v2, real(pctx, flags, dev));
}

GL_HOOK(CUresult, cuCtxCreate_v3,
        (CUcontext *pctx, CUexecAffinityParam *paramsArray, int numParams, unsigned int flags, CUdevice dev))
{
    FORGET_BODY(cuCtxCreate_v3, real(pctx, paramsArray, numParams, flags, dev));
}

GL_HOOK(CUresult, cuCtxCreate_v4, (CUcontext *pctx, CUctxCreateParams *params, unsigned int flags, CUdevice dev))
{
    FORGET_BODY(cuCtxCreate_v4, real(pctx, params, flags, dev));
}
