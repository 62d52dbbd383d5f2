/* How a hook is declared.
 *
 * GL_HOOK(ret, name, params) defines
 *   - gl_hook_<name>: the implementation (hidden, so the library always
 *     reaches its own hooks directly, whatever else is preloaded),
 *   - <name>: an exported alias of it, which is what the dynamic linker binds
 *     the program's calls to,
 *   - gl_real_<name>: the cache of the real function (resolve.h), shared with
 *     the dlsym and cuGetProcAddress hooks, which fill it with exactly the
 *     function the caller would have got,
 *   - REAL_<name>(): the typed accessor.
 * Every name used here must also be listed in hook_list.h. */
#ifndef GL_HOOK_H
#define GL_HOOK_H

#include "internal.h"
#include "resolve.h"

#define GL_HOOK(ret, name, params)                                               \
    typedef ret(*name##_fn) params;                                              \
    struct gl_real gl_real_##name = {#name, NULL};                               \
    static inline name##_fn REAL_##name(void)                                    \
    {                                                                            \
        return (name##_fn)gl_resolve(&gl_real_##name);                           \
    }                                                                            \
    ret gl_hook_##name params;                                                   \
    extern __typeof__(gl_hook_##name) name                                       \
        __attribute__((alias("gl_hook_" #name), visibility("default")));         \
    ret gl_hook_##name params

/* Resolves the real function or returns `err` from the hook: without the
 * real library there is nothing to pass the call to. */
#define GL_REAL_OR_RETURN(var, name, err)                                        \
    name##_fn var = REAL_##name();                                               \
    if (var == NULL)                                                             \
        return err

#endif
