#include "hooks/hook_table.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <string.h>

#include "base/internal.h"
#include "base/self.h"
#include "resolve/hook_list.h"

/* The hooks are defined in the hooks_*.c files with GL_HOOK; only their
 * addresses are needed here, so a generic declaration is enough. */
#define DECLARE(n) extern struct gl_real gl_real_##n; extern void gl_hook_##n(void);
GL_ALL_HOOKS(DECLARE)
#undef DECLARE

static const struct gl_hook_entry entries[] = {
#define ENTRY(n) {#n, &gl_real_##n, (void *)gl_hook_##n},
    GL_ALL_HOOKS(ENTRY)
#undef ENTRY
};

const struct gl_hook_entry *gl_hook_by_name(const char *name)
{
    /* Every intercepted name starts with "cu": reject the rest at once. */
    if (name == NULL || name[0] != 'c' || name[1] != 'u')
        return NULL;
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
        if (!strcmp(entries[i].name, name))
            return &entries[i];
    return NULL;
}

/* Driver functions whose ABI changed, with the CUDA version from which the
 * query of the base name returns the newer one (cuda.h's _v2 mappings); a
 * base name with several rows takes the highest version the query reaches.
 * A row may name the base name itself: the old ABI, wrapped by its own hook.
 * Below the first row, the driver returns an ABI we do not wrap. */
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
    {"cuDevicePrimaryCtxReset", "cuDevicePrimaryCtxReset", 7000}, /* what CUDA 13's runtime asks */
    {"cuDevicePrimaryCtxReset", "cuDevicePrimaryCtxReset_v2", 11000},
    {"cuDevicePrimaryCtxRelease", "cuDevicePrimaryCtxRelease", 7000},
    {"cuDevicePrimaryCtxRelease", "cuDevicePrimaryCtxRelease_v2", 11000},
    {"cuIpcOpenMemHandle", "cuIpcOpenMemHandle_v2", 11000},
    {"cuGetProcAddress", "cuGetProcAddress_v2", 12000},
    {"cuGraphInstantiate", "cuGraphInstantiateWithFlags", 12000}, /* before: 5 arguments */
    {"cuGraphAddNode", "cuGraphAddNode", 12020},
    {"cuGraphAddNode", "cuGraphAddNode_v2", 12030},
};

/* Stream-ordered functions that have a per-thread-default-stream variant. */
static const char *const ptsz[] = {"cuMemAllocAsync", "cuMemFreeAsync", "cuMemAllocFromPoolAsync",
                                   "cuGraphLaunch", "cuGraphInstantiateWithParams"};

const struct gl_hook_entry *gl_hook_for_query(const char *symbol, int cuda_version, int per_thread)
{
    if (symbol == NULL || symbol[0] != 'c' || symbol[1] != 'u')
        return NULL;
    bool named = false;
    const char *best = NULL;
    int best_since = 0;
    for (size_t i = 0; i < sizeof versioned / sizeof versioned[0]; i++) {
        if (strcmp(symbol, versioned[i].base) != 0)
            continue;
        named = true;
        if (cuda_version >= versioned[i].since && versioned[i].since > best_since) {
            best = versioned[i].versioned;
            best_since = versioned[i].since;
        }
    }
    if (best != NULL)
        return gl_hook_by_name(best);
    /* The 4-argument cuGetProcAddress is what older versions get, and we
     * hook it too; every other pre-_v2 ABI passes through. */
    if (named)
        return strcmp(symbol, "cuGetProcAddress") == 0 ? gl_hook_by_name(symbol) : NULL;
    if (per_thread) {
        for (size_t i = 0; i < sizeof ptsz / sizeof ptsz[0]; i++) {
            if (strcmp(symbol, ptsz[i]) == 0) {
                char name[64];
                strcpy(name, symbol);
                strcat(name, "_ptsz");
                return gl_hook_by_name(name);
            }
        }
    }
    /* Names that have no ABI versions, and versioned names asked for
     * directly. */
    return gl_hook_by_name(symbol);
}

void *gl_wrap_entry_point(const char *symbol, int cuda_version, int per_thread, void *fn)
{
    if (fn == NULL || gl_is_own_address((uintptr_t)fn))
        return fn;
    const struct gl_hook_entry *e = gl_hook_for_query(symbol, cuda_version, per_thread);
    if (e == NULL)
        return fn;
    /* Cross-check with the driver's own export table where it has one: if
     * the returned function is exported under another name, its ABI is not
     * the one we would wrap it with, so leave it alone. */
    Dl_info info;
    if (dladdr(fn, &info) != 0 && info.dli_sname != NULL && info.dli_saddr == fn &&
        strcmp(info.dli_sname, e->name) != 0)
        return fn;
    /* Fill the hook's slot with the driver's function unless it already has
     * one (from RTLD_NEXT, or an earlier query): either way the slot holds an
     * implementation of exactly this ABI, so the hook is safe to hand out. */
    void *expected = NULL;
    if (strcmp(symbol, "cuGetProcAddress") == 0)
        /* Except cuGetProcAddress itself: NVIDIA's runtime makes every
         * request after its first 4 through the one it fetched, not the one
         * it dlsym'd, so the hook does the same from then on. */
        atomic_store(&e->real->fn, fn);
    else
        atomic_compare_exchange_strong(&e->real->fn, &expected, fn);
    return e->hook;
}
