/* Finding the real implementation behind each hook.
 *
 * Resolution is lazy (on the first call of each hook, never in a constructor,
 * so libraries loaded later with dlopen are found) and cached.  The aim is
 * the definition the *calling* object would have bound to had libgpuleak not
 * been preloaded, which the dynamic linker finds in two steps:
 *  1. the global scope: dlsym(RTLD_NEXT) from libgpuleak (which comes first
 *     in it).  Found there, it is the answer for every caller, cached once.
 *  2. otherwise the caller's own local scope, its dependencies: the runtime
 *     was loaded RTLD_LOCAL (Python extension modules are), perhaps in two
 *     different versions by two modules.  The calling object is found from
 *     the hook's return address, and the answer is cached per calling object.
 * When neither finds it, every loaded object is searched.  A candidate inside
 * libgpuleak itself is never accepted, so a hook never calls itself. */
#ifndef GL_RESOLVE_H
#define GL_RESOLVE_H

#include <stdatomic.h>

#include <stdint.h>

#include "base/internal.h"
#include "resolve/hook_list.h"

struct gl_real {
    const char *name;
    void *_Atomic fn;      /* the global scope's definition */
    int index;             /* enum gl_real_id */
    _Atomic int no_global; /* step 1 found nothing: go per caller */
};

void *gl_resolve_slow(struct gl_real *r);

/* The real function for a call made from code at `caller` (a return
 * address in the calling object). */
void *gl_resolve_scoped(struct gl_real *r, uintptr_t caller);

/* The definition of `name` in the global scope, else the first loaded object
 * that has one; NULL if none does.  Not cached. */
void *gl_resolve_any(const char *name);

/* Return address of the current hook's caller, for the queries a hook makes
 * on behalf of its caller (cudaGetDevice must ask the caller's runtime). */
extern GL_TLS uintptr_t gl_caller_pc;

/* After dlclose: forgets every cached real function that no loaded object
 * contains any more (the library was unloaded), so the next call resolves
 * it again, in the library as it is loaded now.  The hooks' caches and every
 * other cache filled by gl_resolve_slow are covered. */
void gl_resolve_forget_unloaded(void);

/* The process begins to exit: from here no lookup calls dlopen, whose
 * first use on an object already finalized would run its constructors
 * again (resolve.c).  Waits (at most 1 s) for lookups already inside. */
void gl_resolve_close_loader(void);

static inline void *gl_resolve(struct gl_real *r, uintptr_t caller)
{
    void *fn = atomic_load_explicit(&r->fn, memory_order_acquire);
    return fn ? fn : gl_resolve_scoped(r, caller);
}

/* Declares the cache for one real function the library calls on behalf of
 * the current hook's caller, and a typed accessor REAL_name(). */
#define GL_DEFINE_REAL(ret, name, params)                                      \
    typedef ret(*name##_fn) params;                                            \
    static struct gl_real gl_real_##name = {#name, NULL, GL_REAL_ID_##name, 0}; \
    static inline name##_fn REAL_##name(void)                                  \
    {                                                                          \
        return (name##_fn)gl_resolve(&gl_real_##name, gl_caller_pc);           \
    }

/* Fork child: the locks of the resolved-function lists, re-initialized. */
void gl_resolve_postfork_child(void);

#endif
