#include "resolve.h"

#include <dlfcn.h>
#include <link.h>
#include <string.h>

#include "elf_lookup.h"
#include "internal.h"

struct search {
    const char *name;
    void *found;
};

static int search_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct search *s = data;
    if (info->dlpi_name == NULL || info->dlpi_name[0] == '\0')
        return 0;
    /* RTLD_NOLOAD: only look at what is already there; this takes a
     * reference we drop at once, and never runs constructors. */
    void *h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
    if (h == NULL)
        return 0;
    void *fn = gl_libc_dlsym(h, s->name);
    dlclose(h);
    if (fn != NULL && !gl_is_own_address((uintptr_t)fn)) {
        s->found = fn;
        return 1;
    }
    return 0;
}

void *gl_resolve_slow(struct gl_real *r)
{
    void *fn = gl_libc_dlsym(RTLD_NEXT, r->name);
    if (fn == NULL || gl_is_own_address((uintptr_t)fn)) {
        struct search s = {r->name, NULL};
        dl_iterate_phdr(search_object, &s);
        fn = s.found;
    }
    if (fn != NULL)
        atomic_store_explicit(&r->fn, fn, memory_order_release);
    return fn;
}
