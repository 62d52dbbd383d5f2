/* Name -> hook lookups for the paths that hand out function pointers
 * (dlsym, cuGetProcAddress, cudaGetDriverEntryPoint). */
#ifndef GL_HOOK_TABLE_H
#define GL_HOOK_TABLE_H

#include "resolve/resolve.h"

struct gl_hook_entry {
    const char *name;
    struct gl_real *real;
    void *const *hook_at; /* gl_hook_ptr_<name> (hook.h): the hook's address */
};

/* The hook an entry names, as a pointer to hand out. */
static inline void *gl_hook_fn(const struct gl_hook_entry *e) { return *e->hook_at; }

/* The hook for an exported symbol name, or NULL if it is not intercepted. */
const struct gl_hook_entry *gl_hook_by_name(const char *name);

/* What a driver entry-point query (base name, cudaVersion, flags) resolves
 * to, as the driver's rules define it (resolve/entry_abi.h): "cuMemAlloc" at
 * 3020+ is cuMemAlloc_v2, a per-thread-default-stream query of
 * "cuMemAllocAsync" is cuMemAllocAsync_ptsz, and so on.  NULL when that
 * query is not intercepted (including older ABIs, which are passed through
 * untouched). */
const struct gl_hook_entry *gl_hook_for_query(const char *symbol, int cuda_version, unsigned long long flags);

/* Given the pointer the real driver returned for a query, the pointer to hand
 * to the caller: the hook when the ABI is certain, else `fn` itself. */
void *gl_wrap_entry_point(const char *symbol, int cuda_version, unsigned long long flags, void *fn);

#endif
