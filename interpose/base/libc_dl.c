/* libc's own dlsym, dlvsym and dlclose, for the library's own lookups:
 * libgpuleak interposes dlsym and dlvsym (hooks/dlsym_hook.c) and dlclose,
 * so it cannot reach them through the dynamic linker.  Found in the loaded
 * objects' symbol tables (elf_lookup.c). */
#include <dlfcn.h>
#include <stdatomic.h>

#include "base/elf_lookup.h"
#include "base/internal.h"
#include "base/libc_dl.h"

typedef void *(*dlsym_fn)(void *, const char *);
typedef void *(*dlvsym_fn)(void *, const char *, const char *);

/* Read by the trampolines. */
void *gl_libc_dlsym_ptr;
void *gl_libc_dlvsym_ptr;

GL_NO_SANITIZE void gl_libc_dl_init(void)
{
    if (atomic_load_explicit((void *_Atomic *)&gl_libc_dlsym_ptr, memory_order_acquire) != NULL)
        return;
    void *v = gl_elf_find_symbol("dlvsym");
    void *s = gl_elf_find_symbol("dlsym");
    atomic_store_explicit((void *_Atomic *)&gl_libc_dlvsym_ptr, v, memory_order_release);
    atomic_store_explicit((void *_Atomic *)&gl_libc_dlsym_ptr, s, memory_order_release);
}

void *gl_libc_dlsym(void *handle, const char *name)
{
    gl_libc_dl_init();
    dlsym_fn f = (dlsym_fn)gl_libc_dlsym_ptr;
    return f ? f(handle, name) : NULL;
}

typedef int (*dlclose_fn)(void *);

static dlclose_fn libc_dlclose(void)
{
    static void *_Atomic real;
    void *fn = atomic_load_explicit(&real, memory_order_acquire);
    if (fn == NULL) {
        fn = gl_libc_dlsym(RTLD_NEXT, "dlclose");
        atomic_store_explicit(&real, fn, memory_order_release);
    }
    return (dlclose_fn)fn;
}

int gl_libc_dlclose(void *handle)
{
    dlclose_fn f = libc_dlclose();
    return f ? f(handle) : -1;
}

