/* dlsym and dlvsym, interposed so that a program or runtime that looks up a
 * CUDA function by name (dlopen("libcuda.so.1") + dlsym) gets the hook.
 *
 * Everything else must behave exactly as without libgpuleak.  glibc resolves
 * RTLD_NEXT and RTLD_DEFAULT relative to the object that called dlsym, found
 * from the return address; a hook that simply called the real dlsym would
 * make every such lookup relative to libgpuleak and break other interposers.
 * So the exported entry points are tiny assembly trampolines
 * (dlsym_trampoline.S): they ask gl_dlsym_decide() whether to answer, and if
 * not they *jump* to the real function with the original arguments and the
 * original return address, so glibc sees the true caller.
 *
 * We answer only for an explicit handle and an intercepted name, and only
 * when the real lookup in that handle succeeds: the function found is the one
 * this caller would have bound to (the right libcuda even when it was loaded
 * RTLD_LOCAL), so it becomes the hook's real function.  RTLD_NEXT and
 * RTLD_DEFAULT lookups always go to glibc untouched. */
#include <dlfcn.h>
#include <stdatomic.h>
#include <string.h>

#include "base/internal.h"
#include "base/libc_dl.h"
#include "base/log.h"
#include "base/self.h"
#include "capture/stack_cache.h"
#include "hooks/dlsym_hook.h"
#include "hooks/hook_table.h"
#include "resolve/resolve.h"

typedef void *(*dlvsym_fn)(void *, const char *, const char *);

static void *decide(void *handle, const char *name, void *fn)
{
    static atomic_bool warned;
    const struct gl_hook_entry *e = gl_hook_by_name(name);
    if (e == NULL || fn == NULL || gl_is_own_address((uintptr_t)fn))
        return NULL;
    (void)handle;
    if (strncmp(name, "cuda", 4) == 0) {
        /* A runtime function.  The hook will resolve its real function per
         * calling object (resolve.h), and a pointer obtained here is called
         * from anywhere, so it falls back to the first runtime loaded.  Hand
         * out the hook only when that is this very function; a second,
         * different runtime keeps its own pointer, untracked but correct. */
        if (gl_resolve_any(name) != fn) {
            gl_warn_once(&warned, "a second CUDA runtime is loaded; its functions looked up with "
                                  "dlsym are not tracked");
            return NULL;
        }
        return gl_hook_fn(e);
    }
    /* The driver: there is one per process.  Its function becomes the hook's
     * real function unless one is known already. */
    void *expected = NULL;
    atomic_compare_exchange_strong(&e->real->fn, &expected, fn);
    return gl_hook_fn(e);
}

/* Returns the pointer to hand back, or NULL to let the trampoline jump to
 * glibc with the original arguments. */
void *gl_dlsym_decide(void *handle, const char *name);
GL_NO_SANITIZE void *gl_dlsym_decide(void *handle, const char *name)
{
    gl_libc_dl_init();
    if (handle == RTLD_NEXT || handle == RTLD_DEFAULT || gl_hook_by_name(name) == NULL)
        return NULL;
    return decide(handle, name, gl_libc_dlsym(handle, name));
}

void *gl_dlvsym_decide(void *handle, const char *name, const char *version);
GL_NO_SANITIZE void *gl_dlvsym_decide(void *handle, const char *name, const char *version)
{
    gl_libc_dl_init();
    if (handle == RTLD_NEXT || handle == RTLD_DEFAULT || gl_hook_by_name(name) == NULL ||
        gl_libc_dlvsym_ptr == NULL)
        return NULL;
    return decide(handle, name, ((dlvsym_fn)gl_libc_dlvsym_ptr)(handle, name, version));
}

/* dlclose: a library unloaded and later loaded again (at another address)
 * must not leave a hook calling into where it used to be.  After a
 * successful dlclose, caches pointing into no loaded object are forgotten
 * (gl_resolve_forget_unloaded); dlclose has no caller-relative semantics, so
 * a plain wrapper is enough.  libgpuleak's own dlopen/dlclose pairs use
 * gl_libc_dlclose (base/libc_dl.c) and skip this. */
int gl_dlclose_hook(void *handle)
{
    int rc = gl_libc_dlclose(handle); /* -1 without calling anything when libc has none */
    if (rc == 0) {
        gl_resolve_forget_unloaded();
        gl_stack_cache_flush(); /* its code and unwind tables may be gone */
    }
    return rc;
}

/* The export, and the hidden name by which `gpuleak attach` puts it in the
 * program's import slots (a reference to "dlclose" from here would bind to
 * libc's when the library is not preloaded). */
GL_EXPORT extern __typeof__(gl_dlclose_hook) dlclose __attribute__((alias("gl_dlclose_hook")));
