/* Context lifetime: destroying or resetting a context (or releasing the
 * primary context's last reference) releases the memory it owns without any
 * free call, so its records are dropped here (and noted
 * as leaked until then, teardown.h).  The hook on
 * cuDevicePrimaryCtxRetain learns each device's primary context handle
 * (cuda/calls.c), so that driver allocations made in it are attributed to the
 * same context as the runtime's, and measures the context when the retain
 * creates it (cuda/ctx_cost.h); the green-context hooks learn which
 * CUcontexts are a primary context under another handle, and a
 * cuGreenCtxDestroy that released the primary context's last reference is a
 * teardown. */
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>

#include "cuda/calls.h"
#include "cuda/ctx_cost.h"
#include "cuda/green_ctx.h"
#include "hooks/hook.h"
#include "snapshot_format.h"

#define NO_DRIVER CUDA_ERROR_NOT_INITIALIZED

/* The retain that makes the primary context active creates it: its cost is
 * measured then (cuda/ctx_cost.h), once per creation, a reset and a new
 * retain included.  Whether it will create it is asked before the call. */
GL_HOOK(CUresult, cuDevicePrimaryCtxRetain, (CUcontext *pctx, CUdevice dev))
{
    GL_REAL_OR_RETURN(real, cuDevicePrimaryCtxRetain, NO_DRIVER);
    gl_enter();
    bool creates = gl_ctx_primary_inactive(dev);
    CUresult rc = real(pctx, dev);
    /* Learnt even when nested: the runtime retains through this. */
    if (rc == CUDA_SUCCESS && pctx != NULL && *pctx != NULL) {
        gl_where_note_primary(dev, (uintptr_t)*pctx);
        if (creates)
            gl_ctx_note_created(dev);
    }
    gl_leave();
    return rc;
}

/* A reset of the primary context, or a release of a reference to it,
 * through either ABI (same arguments, same effect): what the context owned
 * goes with it, on a release only when that was the last reference.  The
 * primary context is reset when its last reference is released (CUDA's
 * documentation): that is a teardown too.  Whether this was the last one
 * is asked after the call; a retain by another thread in between hides it
 * (the records then stay live, as before this hook). */
static CUresult primary_ends(CUresult (*real)(CUdevice), CUdevice dev, uint16_t api, bool last_only)
{
    bool track = gl_enter();
    CUresult rc = real(dev);
    gl_where_devices_forget_all(); /* a thread's current context may be gone */
    if (track && rc == CUDA_SUCCESS && (!last_only || gl_ctx_primary_inactive(dev)))
        gl_track_drop_context(dev, 0, api);
    gl_leave();
    return rc;
}

GL_HOOK(CUresult, cuDevicePrimaryCtxReset_v2, (CUdevice dev))
{
    GL_REAL_OR_RETURN(real, cuDevicePrimaryCtxReset_v2, NO_DRIVER);
    return primary_ends(real, dev, GL_API_CU_DEVICE_PRIMARY_CTX_RESET, false);
}

GL_HOOK(CUresult, cuDevicePrimaryCtxRelease_v2, (CUdevice dev))
{
    GL_REAL_OR_RETURN(real, cuDevicePrimaryCtxRelease_v2, NO_DRIVER);
    return primary_ends(real, dev, GL_API_CU_DEVICE_PRIMARY_CTX_RELEASE, true);
}

/* A context destroyed, through either ABI: what it owned goes with it. */
static void ctx_destroyed(bool track, CUresult rc, CUcontext ctx, uint16_t api)
{
    gl_where_devices_forget_all(); /* a thread's current context may be gone */
    if (track && rc == CUDA_SUCCESS && ctx != NULL)
        gl_track_drop_context(GL_ANY_OWNER, (uintptr_t)ctx, api);
}

GL_HOOK(CUresult, cuCtxDestroy_v2, (CUcontext ctx))
{
    GL_CALL_THEN_BODY(cuCtxDestroy_v2, NO_DRIVER, real(ctx), ctx_destroyed(track, rc, ctx, GL_API_CU_CTX_DESTROY));
}

/* The pre-4.0 ABI, same argument and effect: what a lookup by the bare name
 * finds (ctypes, dlsym) and what cuGetProcAddress hands out below 4000. */
GL_HOOK(CUresult, cuCtxDestroy, (CUcontext ctx))
{
    GL_CALL_THEN_BODY(cuCtxDestroy, NO_DRIVER, real(ctx), ctx_destroyed(track, rc, ctx, GL_API_CU_CTX_DESTROY_V1));
}

/* The pre-11.0 ABIs of the primary-context reset and release: NVIDIA's CUDA
 * 13 runtime asks for both at version 7000 (tools/fakecuda/
 * real_runtime_requests.txt), so this is what a static runtime's
 * cudaDeviceReset and its last release are.  Same arguments, same effect. */
GL_HOOK(CUresult, cuDevicePrimaryCtxReset, (CUdevice dev))
{
    GL_REAL_OR_RETURN(real, cuDevicePrimaryCtxReset, NO_DRIVER);
    return primary_ends(real, dev, GL_API_CU_DEVICE_PRIMARY_CTX_RESET_V1, false);
}

GL_HOOK(CUresult, cuDevicePrimaryCtxRelease, (CUdevice dev))
{
    GL_REAL_OR_RETURN(real, cuDevicePrimaryCtxRelease, NO_DRIVER);
    return primary_ends(real, dev, GL_API_CU_DEVICE_PRIMARY_CTX_RELEASE_V1, true);
}

GL_DEFINE_REAL(CUresult, cuCtxGetApiVersion, (CUcontext, unsigned int *))

/* cuCtxDetach (deprecated, still fetched by CUDA 13's runtime) drops one
 * usage of a context and destroys it with the last one, as cuCtxDestroy
 * does.  No call tells the usage count, so the context is gone when the
 * driver no longer answers for it afterwards. */
GL_HOOK(CUresult, cuCtxDetach, (CUcontext ctx))
{
    GL_REAL_OR_RETURN(real, cuCtxDetach, NO_DRIVER);
    bool track = gl_enter();
    CUresult rc = real(ctx);
    gl_where_devices_forget_all();
    unsigned int version;
    cuCtxGetApiVersion_fn alive = REAL_cuCtxGetApiVersion();
    if (track && rc == CUDA_SUCCESS && ctx != NULL && alive != NULL && alive(ctx, &version) != CUDA_SUCCESS)
        gl_track_drop_context(GL_ANY_OWNER, (uintptr_t)ctx, GL_API_CU_CTX_DETACH);
    gl_leave();
    return rc;
}

/* Green contexts (cuda/green_ctx.h): a green context holds a reference on
 * its device's primary context, and its CUcontext is that primary context
 * with other SMs.  Its creation and conversion are learnt even when nested;
 * where the table has no room, nothing is learnt (as before these hooks). */
GL_HOOK(CUresult, cuGreenCtxCreate, (CUgreenCtx *phCtx, CUdevResourceDesc desc, CUdevice dev, unsigned int flags))
{
    GL_REAL_OR_RETURN(real, cuGreenCtxCreate, NO_DRIVER);
    gl_enter();
    CUresult rc = real(phCtx, desc, dev, flags);
    if (rc == CUDA_SUCCESS && phCtx != NULL && *phCtx != NULL)
        gl_green_note((uintptr_t)*phCtx, dev);
    gl_leave();
    return rc;
}

GL_HOOK(CUresult, cuCtxFromGreenCtx, (CUcontext *pContext, CUgreenCtx hCtx))
{
    GL_REAL_OR_RETURN(real, cuCtxFromGreenCtx, NO_DRIVER);
    gl_enter();
    CUresult rc = real(pContext, hCtx);
    if (rc == CUDA_SUCCESS && pContext != NULL && *pContext != NULL)
        gl_green_note_ctx((uintptr_t)hCtx, (uintptr_t)*pContext);
    gl_leave();
    return rc;
}

/* cuGreenCtxDestroy releases the green context's reference on the primary
 * context: when that was the last one (the driver then reports the primary
 * context inactive), the primary context is reset and what it owned is
 * gone, as after cuDevicePrimaryCtxRelease's last.  A green context whose
 * creation was not noted drops nothing (its device is not known). */
GL_HOOK(CUresult, cuGreenCtxDestroy, (CUgreenCtx hCtx))
{
    GL_REAL_OR_RETURN(real, cuGreenCtxDestroy, NO_DRIVER);
    bool track = gl_enter();
    int32_t dev = gl_green_device((uintptr_t)hCtx);
    CUresult rc = real(hCtx);
    gl_where_devices_forget_all();
    if (rc == CUDA_SUCCESS) {
        gl_green_forget((uintptr_t)hCtx);
        if (track && dev >= 0 && gl_ctx_primary_inactive(dev))
            gl_track_drop_context(dev, 0, GL_API_CU_GREEN_CTX_DESTROY);
    }
    gl_leave();
    return rc;
}
