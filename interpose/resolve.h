/* Finding the real implementation behind each hook.
 *
 * Resolution is lazy (on the first call of each hook, never in a constructor,
 * so libraries loaded later with dlopen are found) and cached in an atomic
 * pointer.  First choice is dlsym(RTLD_NEXT): the definition the program would
 * have bound to had libgpuleak not been preloaded.  When that finds nothing
 * (the runtime was loaded RTLD_LOCAL, as Python extension modules are), every
 * loaded object is searched, and a candidate inside libgpuleak itself is never
 * accepted, so a hook can never end up calling itself. */
#ifndef GL_RESOLVE_H
#define GL_RESOLVE_H

#include <stdatomic.h>

struct gl_real {
    const char *name;
    void *_Atomic fn;
};

void *gl_resolve_slow(struct gl_real *r);

/* After dlclose: forgets every cached real function that no loaded object
 * contains any more (the library was unloaded), so the next call resolves
 * it again, in the library as it is loaded now.  The hooks' caches and every
 * other cache filled by gl_resolve_slow are covered. */
void gl_resolve_forget_unloaded(void);

/* libc's dlclose, bypassing the dlclose hook (dlsym_hook.c). */
int gl_libc_dlclose(void *handle);

static inline void *gl_resolve(struct gl_real *r)
{
    void *fn = atomic_load_explicit(&r->fn, memory_order_acquire);
    return fn ? fn : gl_resolve_slow(r);
}

/* Declares the cache for one real function and a typed accessor REAL_name(). */
#define GL_DEFINE_REAL(ret, name, params)                                      \
    typedef ret(*name##_fn) params;                                            \
    static struct gl_real gl_real_##name = {#name, NULL};                      \
    static inline name##_fn REAL_##name(void)                                  \
    {                                                                          \
        return (name##_fn)gl_resolve(&gl_real_##name);                         \
    }

#endif
