/* The entry-point lookups: cuGetProcAddress (both ABIs) in the driver, and
 * cudaGetDriverEntryPoint(ByVersion) in the runtime.
 *
 * This is how real runtimes reach the driver: the shared and the static
 * libcudart dlopen libcuda, dlsym only cuGetProcAddress, and fetch every other
 * driver function through it.  So these hooks hand back our hooks in place of
 * the intercepted driver functions, with the ABI the caller asked for (see
 * hook_table.c), after the real lookup succeeded; status codes and every
 * other result pass through unchanged.  They wrap whatever the nesting depth:
 * a lookup is not an allocation, and the runtime's lookups happen inside its
 * first API call. */
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "hooks/hook.h"
#include "hooks/hook_table.h"

#define NO_DRIVER CUDA_ERROR_NOT_INITIALIZED

static void wrap(const char *symbol, void **pfn, int version, unsigned long long flags)
{
    if (pfn == NULL || *pfn == NULL || !gl_ensure_active())
        return;
    *pfn = gl_wrap_entry_point(symbol, version, flags, *pfn);
}

GL_HOOK(CUresult, cuGetProcAddress_v2,
        (const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
         CUdriverProcAddressQueryResult *symbolStatus))
{
    GL_REAL_OR_RETURN(real, cuGetProcAddress_v2, NO_DRIVER);
    gl_enter();
    CUresult rc = real(symbol, pfn, cudaVersion, flags, symbolStatus);
    if (rc == CUDA_SUCCESS)
        wrap(symbol, pfn, cudaVersion, flags);
    gl_leave();
    return rc;
}

GL_HOOK(CUresult, cuGetProcAddress, (const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags))
{
    GL_REAL_OR_RETURN(real, cuGetProcAddress, NO_DRIVER);
    gl_enter();
    CUresult rc = real(symbol, pfn, cudaVersion, flags);
    if (rc == CUDA_SUCCESS)
        wrap(symbol, pfn, cudaVersion, flags);
    gl_leave();
    return rc;
}

GL_DEFINE_REAL(cudaError_t, cudaRuntimeGetVersion, (int *))

/* The runtime's entry point queries.  Programs built for the per-thread
 * default stream (nvcc --default-stream per-thread) call the _ptsz exports
 * instead; the answer is wrapped the same way. */
typedef cudaError_t (*entry_fn)(const char *, void **, unsigned long long, enum cudaDriverEntryPointQueryResult *);
typedef cudaError_t (*entry_by_version_fn)(const char *, void **, unsigned int, unsigned long long,
                                           enum cudaDriverEntryPointQueryResult *);

static cudaError_t entry_point(entry_fn real, const char *symbol, void **funcPtr, unsigned long long flags,
                               enum cudaDriverEntryPointQueryResult *driverStatus)
{
    gl_enter();
    cudaError_t rc = real(symbol, funcPtr, flags, driverStatus);
    /* Without a version argument the runtime answers for its own version. */
    int version = 0;
    cudaRuntimeGetVersion_fn get_version = REAL_cudaRuntimeGetVersion();
    if (rc == cudaSuccess && get_version != NULL && get_version(&version) == cudaSuccess)
        wrap(symbol, funcPtr, version, flags);
    gl_leave();
    return rc;
}

static cudaError_t entry_point_by_version(entry_by_version_fn real, const char *symbol, void **funcPtr,
                                          unsigned int cudaVersion, unsigned long long flags,
                                          enum cudaDriverEntryPointQueryResult *driverStatus)
{
    gl_enter();
    cudaError_t rc = real(symbol, funcPtr, cudaVersion, flags, driverStatus);
    if (rc == cudaSuccess)
        wrap(symbol, funcPtr, (int)cudaVersion, flags);
    gl_leave();
    return rc;
}

GL_HOOK(cudaError_t, cudaGetDriverEntryPoint,
        (const char *symbol, void **funcPtr, unsigned long long flags,
         enum cudaDriverEntryPointQueryResult *driverStatus))
{
    GL_REAL_OR_RETURN(real, cudaGetDriverEntryPoint, cudaErrorInitializationError);
    return entry_point(real, symbol, funcPtr, flags, driverStatus);
}

GL_HOOK(cudaError_t, cudaGetDriverEntryPoint_ptsz,
        (const char *symbol, void **funcPtr, unsigned long long flags,
         enum cudaDriverEntryPointQueryResult *driverStatus))
{
    GL_REAL_OR_RETURN(real, cudaGetDriverEntryPoint_ptsz, cudaErrorInitializationError);
    return entry_point(real, symbol, funcPtr, flags, driverStatus);
}

GL_HOOK(cudaError_t, cudaGetDriverEntryPointByVersion,
        (const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags,
         enum cudaDriverEntryPointQueryResult *driverStatus))
{
    GL_REAL_OR_RETURN(real, cudaGetDriverEntryPointByVersion, cudaErrorInitializationError);
    return entry_point_by_version(real, symbol, funcPtr, cudaVersion, flags, driverStatus);
}

GL_HOOK(cudaError_t, cudaGetDriverEntryPointByVersion_ptsz,
        (const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags,
         enum cudaDriverEntryPointQueryResult *driverStatus))
{
    GL_REAL_OR_RETURN(real, cudaGetDriverEntryPointByVersion_ptsz, cudaErrorInitializationError);
    return entry_point_by_version(real, symbol, funcPtr, cudaVersion, flags, driverStatus);
}
