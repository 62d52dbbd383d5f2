/* How a hook is declared.
 *
 * GL_HOOK(ret, name, params) defines
 *   - gl_hook_<name>: the implementation (hidden, so the library always
 *     reaches its own hooks directly, whatever else is preloaded),
 *   - <name>: an exported alias of it, which is what the dynamic linker binds
 *     the program's calls to,
 *   - gl_hook_ptr_<name>: its address, for the name -> hook table
 *     (hook_table.c), which cannot declare the hooks with their own types,
 *   - and uses gl_real_<name>: the cache of the real function, defined in
 *     resolve/real_table.c (so that the resolve layer reaches every cache
 *     without knowing the hooks), shared with
 *     the dlsym and cuGetProcAddress hooks, which fill it with exactly the
 *     function the caller would have got,
 *   - REAL_<name>(caller): the typed accessor; GL_REAL_OR_RETURN, used at
 *     the top of every hook, passes the hook's return address, so the real
 *     function is the one the calling object would have bound to.
 * Every name used here must also be listed in hook_list.h. */
#ifndef GL_HOOK_H
#define GL_HOOK_H

#include "base/internal.h"
#include "control/lifecycle.h"
#include "resolve/resolve.h"

#define GL_HOOK(ret, name, params)                                               \
    typedef ret(*name##_fn) params;                                              \
    extern struct gl_real gl_real_##name; /* resolve/real_table.c */             \
    static inline name##_fn REAL_##name(uintptr_t caller)                        \
    {                                                                            \
        return (name##_fn)gl_resolve(&gl_real_##name, caller);                   \
    }                                                                            \
    ret gl_hook_##name params;                                                   \
    extern __typeof__(gl_hook_##name) name                                       \
        __attribute__((alias("gl_hook_" #name), visibility("default")));         \
    extern void *const gl_hook_ptr_##name;                                       \
    void *const gl_hook_ptr_##name = (void *)gl_hook_##name;                     \
    ret gl_hook_##name params

/* An allocation failed with out-of-memory: recorded (gl_call_failed),
 * then the out-of-memory snapshot, if one is due (gl_trigger_oom).  errno is
 * kept. */
void gl_hook_out_of_memory(int32_t device, uint64_t size, uint64_t stream, uint16_t kind, uint16_t api);

/* Resolves the real function or returns `err` from the hook: without the
 * real library there is nothing to pass the call to. */
#define GL_REAL_OR_RETURN(var, name, err)                                        \
    gl_caller_pc = (uintptr_t)__builtin_return_address(0);                       \
    name##_fn var = REAL_##name(gl_caller_pc);                                   \
    if (var == NULL)                                                             \
        return err

/* The whole body of a hook whose bookkeeping all comes after the real call
 * (allocations, creations, imports, opens, launches): the real function
 * resolved, the call entered, made, then `after`, a statement that may read
 * `track` (true for the outermost intercepted call on this thread) and `rc`
 * (the real result), left, and `rc` returned untouched.  A macro, not a
 * function: `call` keeps the hook's own parameters and types, and the real
 * function returns straight into the hook, as it did when each hook spelled
 * this out.  `after` runs whether or not `track` is set: one that learns at
 * any depth ignores it. */
#define GL_CALL_THEN_BODY(name, err, call, after)                                \
    GL_REAL_OR_RETURN(real, name, err);                                          \
    bool track = gl_enter();                                                     \
    (void)track;                                                                 \
    __typeof__(call) rc = call;                                                  \
    after;                                                                       \
    gl_leave();                                                                  \
    return rc

/* The whole body of a hook that releases what `key` names in `space` (an
 * address, or an opaque handle: arrays, modules): its record is taken before
 * the call (the driver may hand the value out again as soon as it is
 * released) and settled after it; a key with no record is kept as an
 * invalid free, on the device `where` names.  Only when `cond` also holds
 * (a stream-ordered free: the stream is not being captured) is anything
 * recorded.  enter: gl_enter, or a hook's own (module loads record at any
 * depth); ok: the API's success code.  key is a pointer or an integer
 * handle (CUdeviceptr), compared with 0. */
#define GL_RELEASE_BODY_IF(name, key, call, cond, space, api, err, ok, enter, where)             \
    GL_REAL_OR_RETURN(real, name, err);                                                         \
    bool track = enter() && (key) != 0 && (cond);                                               \
    struct gl_live *r = track ? gl_call_free_begin(space, (uintptr_t)(key)) : NULL;             \
    __typeof__(call) rc = call;                                                                 \
    if (track)                                                                                  \
        gl_call_free_end_api(r, rc == (ok), r ? 0 : (where).device, (uintptr_t)(key), api);     \
    gl_leave();                                                                                 \
    return rc

/* A release by the one-argument real function: real(handle). */
#define GL_RELEASE_HANDLE_BODY(name, handle, space, api, err, ok, enter, where) \
    GL_RELEASE_BODY_IF(name, handle, real(handle), true, space, api, err, ok, enter, where)

#endif
