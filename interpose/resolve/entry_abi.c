#include "resolve/entry_abi.h"

#include <cuda.h>
#include <stdbool.h>
#include <string.h>

#include "resolve/hook_list.h"

/* Every hooked name, as text only: no hook is referenced, so this file links
 * alone. */
static const char *const hooked[] = {
#define NAME(n) #n,
    GL_ALL_HOOKS(NAME)
#undef NAME
};

static const char *hooked_name(const char *name)
{
    for (size_t i = 0; i < sizeof hooked / sizeof hooked[0]; i++)
        if (strcmp(hooked[i], name) == 0)
            return hooked[i];
    return NULL;
}

/* Driver functions whose ABI changed, with the CUDA version from which the
 * query of the base name returns the newer one (cuda.h's _v2 mappings); a
 * base name with several rows takes the highest version the query reaches.
 * Below a base name's rows the driver hands out the base name's own
 * function, its oldest ABI.  These are facts about the driver, not about
 * our hooks: whether the selected ABI is wrapped is hook_list.h's alone. */
static const struct {
    const char *base;
    const char *versioned;
    int since;
} versioned[] = {
    {"cuMemAlloc", "cuMemAlloc_v2", 3020},
    {"cuMemFree", "cuMemFree_v2", 3020},
    {"cuMemAllocPitch", "cuMemAllocPitch_v2", 3020},
    {"cuMemAllocHost", "cuMemAllocHost_v2", 3020},
    {"cuMemHostRegister", "cuMemHostRegister_v2", 6050},
    {"cuArrayCreate", "cuArrayCreate_v2", 3020},
    {"cuArray3DCreate", "cuArray3DCreate_v2", 3020},
    {"cuCtxDestroy", "cuCtxDestroy_v2", 4000},
    {"cuCtxCreate", "cuCtxCreate_v2", 3020},
    {"cuCtxCreate", "cuCtxCreate_v3", 11040},
    {"cuCtxCreate", "cuCtxCreate_v4", 12050},
    {"cuCtxPushCurrent", "cuCtxPushCurrent_v2", 4000},
    {"cuCtxPopCurrent", "cuCtxPopCurrent_v2", 4000},
    {"cuDevicePrimaryCtxReset", "cuDevicePrimaryCtxReset_v2", 11000},
    {"cuDevicePrimaryCtxRelease", "cuDevicePrimaryCtxRelease_v2", 11000},
    {"cuIpcOpenMemHandle", "cuIpcOpenMemHandle_v2", 11000},
    {"cuGetProcAddress", "cuGetProcAddress_v2", 12000},
    {"cuGraphInstantiate", "cuGraphInstantiate_v2", 11000},       /* 5 arguments, as before */
    {"cuGraphInstantiate", "cuGraphInstantiateWithFlags", 12000}, /* before: 5 arguments */
    {"cuGraphAddNode", "cuGraphAddNode_v2", 12030},
    {"cuStreamBeginCapture", "cuStreamBeginCapture_v2", 10010}, /* before: no mode argument */
    /* not hooked, but documented as not intercepted: every ABI the
     * toolkit declares for those is here too (t_unit_procaddr_rules), so
     * that hooking one later needs no row */
    {"cuStreamDestroy", "cuStreamDestroy_v2", 4000},
    {"cuEventDestroy", "cuEventDestroy_v2", 4000},
    {"cuGraphExecUpdate", "cuGraphExecUpdate_v2", 12000},
    {"cuGraphicsResourceGetMappedPointer", "cuGraphicsResourceGetMappedPointer_v2", 3020},
    {"cuGraphicsResourceSetMapFlags", "cuGraphicsResourceSetMapFlags_v2", 6050},
};

/* Stream-ordered functions that have a per-thread-default-stream variant
 * (cudaTypedefs.h's PFN_..._ptsz), hooked or documented. */
static const char *const ptsz[] = {"cuMemAllocAsync", "cuMemFreeAsync", "cuMemAllocFromPoolAsync",
                                   "cuGraphLaunch", "cuGraphInstantiateWithParams",
                                   "cuStreamBeginCapture", "cuStreamBeginCaptureToGraph",
                                   "cuMemMapArrayAsync", "cuGraphicsMapResources", "cuGraphicsUnmapResources"};

/* abi_name (symbol's ABI for the query's version), or its _ptsz variant
 * when the query asks for the per-thread default stream and symbol has
 * one: the variant of each ABI, as the driver hands out.  Into abi; false
 * if it does not fit. */
static bool stream_variant(const char *symbol, const char *abi_name, unsigned long long flags, char *abi, size_t size)
{
    const char *suffix = "";
    if ((flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0) {
        for (size_t i = 0; i < sizeof ptsz / sizeof ptsz[0]; i++)
            if (strcmp(symbol, ptsz[i]) == 0)
                suffix = "_ptsz";
    }
    size_t n = strlen(abi_name), m = strlen(suffix);
    if (n + m >= size)
        return false;
    memcpy(abi, abi_name, n);
    memcpy(abi + n, suffix, m + 1);
    return true;
}

bool gl_entry_abi_select(const char *symbol, int cuda_version, unsigned long long flags, char *abi, size_t size)
{
    /* Every driver name starts with "cu". */
    if (symbol == NULL || symbol[0] != 'c' || symbol[1] != 'u')
        return false;
    const char *best = NULL;
    int best_since = 0;
    for (size_t i = 0; i < sizeof versioned / sizeof versioned[0]; i++) {
        if (strcmp(symbol, versioned[i].base) != 0)
            continue;
        if (cuda_version >= versioned[i].since && versioned[i].since > best_since) {
            best = versioned[i].versioned;
            best_since = versioned[i].since;
        }
    }
    /* Below every row (the 4-argument cuGetProcAddress, the pre-11.0
     * primary-context calls, cuCtxDestroy v1, ...), names that have no ABI
     * versions, and versioned names asked for directly: the name's own
     * function. */
    return stream_variant(symbol, best != NULL ? best : symbol, flags, abi, size);
}

const char *gl_entry_abi_hook_name(const char *symbol, int cuda_version, unsigned long long flags)
{
    char abi[128];
    return gl_entry_abi_select(symbol, cuda_version, flags, abi, sizeof abi) ? hooked_name(abi) : NULL;
}
