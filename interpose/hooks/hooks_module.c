/* Module and library loading (cuModuleLoad*, cuLibraryLoad*) and unloading.
 *
 * A loaded module's code, constant banks and globals take device memory,
 * part of "why is the card fuller than my allocations".  No call says how
 * much, so it is measured: the drop of the driver's free memory
 * (cuMemGetInfo on the current context) across the load.  That is exact when
 * nothing else allocates or frees on the device meanwhile (another thread, or
 * another process), and 0 when the load took nothing yet: a library loaded
 * lazily (CUDA_MODULE_LOADING=LAZY, the default since CUDA 12.2) takes its
 * memory at the first use of a kernel, which is not followed.
 *
 * Unlike allocations, loads are recorded even inside another hooked call:
 * runtimes load their own fatbins inside whatever call first needs a
 * context (a cudaMalloc, say) and unload them inside cudaDeviceReset or at
 * exit, and an unload of a load not seen would be reported as an invalid
 * free.  The runtime's cudaLibraryLoadData/FromFile/Unload reach these
 * (NVIDIA's 13.0 runtime fetches cuLibraryLoadData@12000), so there is one
 * record per load however it was asked for.  A module belongs to its context
 * (cuCtxDestroy unloads it: state/track.c context_owned); a library does not. */
#include <cuda.h>

#include "control/lifecycle.h"
#include "cuda/calls.h"
#include "cuda/pools.h"
#include "hooks/hook.h"
#include "snapshot_format.h"
#include "state/track.h"

#define NO_DRIVER CUDA_ERROR_NOT_INITIALIZED

/* Entered at any depth; true when the call is to be recorded. */
static bool enter_any(void)
{
    bool outer = gl_enter();
    return outer || (gl_hook_depth > 1 && gl_tracking_active());
}

static uint64_t free_now(bool track)
{
    uint64_t free_bytes = 0, total = 0;
    if (!track || gl_current_mem_info(&free_bytes, &total) != 0)
        return UINT64_MAX; /* not known */
    return free_bytes;
}

static void after_load(bool track, CUresult rc, const void *handle, uint64_t before, uint16_t api)
{
    if (!track || rc != CUDA_SUCCESS || handle == NULL)
        return;
    uint64_t after = free_now(true);
    uint64_t taken = before != UINT64_MAX && after != UINT64_MAX && before > after ? before - after : 0;
    gl_call_alloc(gl_where_driver(0), (uintptr_t)handle, taken, 0, GL_KIND_MODULE, api, GL_SPACE_MODULE);
}

#define LOAD_BODY(name, out, api, ...)                                               \
    GL_REAL_OR_RETURN(real, name, NO_DRIVER);                                        \
    bool track = enter_any();                                                        \
    uint64_t before = free_now(track);                                               \
    CUresult rc = real(__VA_ARGS__);                                                 \
    after_load(track, rc, (out) != NULL ? (const void *)*(out) : NULL, before, api); \
    gl_leave();                                                                      \
    return rc

#define UNLOAD_BODY(name, handle, api) \
    GL_RELEASE_HANDLE_BODY(name, handle, GL_SPACE_MODULE, api, NO_DRIVER, CUDA_SUCCESS, enter_any, gl_where_driver(0))

GL_HOOK(CUresult, cuModuleLoad, (CUmodule *module, const char *fname))
{
    LOAD_BODY(cuModuleLoad, module, GL_API_CU_MODULE_LOAD, module, fname);
}

GL_HOOK(CUresult, cuModuleLoadData, (CUmodule *module, const void *image))
{
    LOAD_BODY(cuModuleLoadData, module, GL_API_CU_MODULE_LOAD_DATA, module, image);
}

GL_HOOK(CUresult, cuModuleLoadDataEx,
        (CUmodule *module, const void *image, unsigned int numOptions, CUjit_option *options, void **optionValues))
{
    LOAD_BODY(cuModuleLoadDataEx, module, GL_API_CU_MODULE_LOAD_DATA_EX, module, image, numOptions, options,
              optionValues);
}

GL_HOOK(CUresult, cuModuleLoadFatBinary, (CUmodule *module, const void *fatCubin))
{
    LOAD_BODY(cuModuleLoadFatBinary, module, GL_API_CU_MODULE_LOAD_FAT_BINARY, module, fatCubin);
}

GL_HOOK(CUresult, cuModuleUnload, (CUmodule hmod))
{
    UNLOAD_BODY(cuModuleUnload, hmod, GL_API_CU_MODULE_UNLOAD);
}

GL_HOOK(CUresult, cuLibraryLoadData,
        (CUlibrary *library, const void *code, CUjit_option *jitOptions, void **jitOptionsValues,
         unsigned int numJitOptions, CUlibraryOption *libraryOptions, void **libraryOptionValues,
         unsigned int numLibraryOptions))
{
    LOAD_BODY(cuLibraryLoadData, library, GL_API_CU_LIBRARY_LOAD_DATA, library, code, jitOptions,
              jitOptionsValues, numJitOptions, libraryOptions, libraryOptionValues, numLibraryOptions);
}

GL_HOOK(CUresult, cuLibraryLoadFromFile,
        (CUlibrary *library, const char *fileName, CUjit_option *jitOptions, void **jitOptionsValues,
         unsigned int numJitOptions, CUlibraryOption *libraryOptions, void **libraryOptionValues,
         unsigned int numLibraryOptions))
{
    LOAD_BODY(cuLibraryLoadFromFile, library, GL_API_CU_LIBRARY_LOAD_FROM_FILE, library, fileName, jitOptions,
              jitOptionsValues, numJitOptions, libraryOptions, libraryOptionValues, numLibraryOptions);
}

GL_HOOK(CUresult, cuLibraryUnload, (CUlibrary library))
{
    UNLOAD_BODY(cuLibraryUnload, library, GL_API_CU_LIBRARY_UNLOAD);
}
