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
 *   - REAL_<name>(caller): the typed accessor; GL_REAL_OR_RETURN, used at
 *     the top of every hook, passes the hook's return address, so the real
 *     function is the one the calling object would have bound to.
 * Every name used here must also be listed in hook_list.h. */
#ifndef GL_HOOK_H
#define GL_HOOK_H

#include "internal.h"
#include "resolve.h"

#define GL_HOOK(ret, name, params)                                               \
    typedef ret(*name##_fn) params;                                              \
    struct gl_real gl_real_##name = {#name, NULL, GL_REAL_ID_##name, 0};         \
    static inline name##_fn REAL_##name(uintptr_t caller)                        \
    {                                                                            \
        return (name##_fn)gl_resolve(&gl_real_##name, caller);                   \
    }                                                                            \
    ret gl_hook_##name params;                                                   \
    extern __typeof__(gl_hook_##name) name                                       \
        __attribute__((alias("gl_hook_" #name), visibility("default")));         \
    ret gl_hook_##name params

/* Resolves the real function or returns `err` from the hook: without the
 * real library there is nothing to pass the call to. */
#define GL_REAL_OR_RETURN(var, name, err)                                        \
    gl_caller_pc = (uintptr_t)__builtin_return_address(0);                       \
    name##_fn var = REAL_##name(gl_caller_pc);                                   \
    if (var == NULL)                                                             \
        return err

#endif
