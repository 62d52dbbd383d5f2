#include "resolve.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <string.h>

#include "elf_lookup.h"
#include "hook_table.h"
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
    gl_libc_dlclose(h);
    if (fn != NULL && !gl_is_own_address((uintptr_t)fn)) {
        s->found = fn;
        return 1;
    }
    return 0;
}

/* Every cache gl_resolve_slow has filled, for gl_resolve_forget_unloaded
 * (the hooks' caches are in the hook table already). */
#define RESOLVED_MAX 256
static struct gl_real *resolved[RESOLVED_MAX];
static size_t nresolved;
static pthread_mutex_t resolved_lock = PTHREAD_MUTEX_INITIALIZER;

static void remember(struct gl_real *r)
{
    pthread_mutex_lock(&resolved_lock);
    size_t i = 0;
    while (i < nresolved && resolved[i] != r)
        i++;
    if (i == nresolved && nresolved < RESOLVED_MAX)
        resolved[nresolved++] = r;
    pthread_mutex_unlock(&resolved_lock);
}

static void forget_if_unloaded(struct gl_real *r)
{
    void *fn = atomic_load_explicit(&r->fn, memory_order_acquire);
    Dl_info info;
    if (fn != NULL && dladdr(fn, &info) == 0)
        atomic_compare_exchange_strong(&r->fn, &fn, NULL);
}

void gl_resolve_forget_unloaded(void)
{
    gl_hook_table_each_real(forget_if_unloaded);
    pthread_mutex_lock(&resolved_lock);
    for (size_t i = 0; i < nresolved; i++)
        forget_if_unloaded(resolved[i]);
    pthread_mutex_unlock(&resolved_lock);
}

void *gl_resolve_slow(struct gl_real *r)
{
    void *fn = gl_libc_dlsym(RTLD_NEXT, r->name);
    if (fn == NULL || gl_is_own_address((uintptr_t)fn)) {
        struct search s = {r->name, NULL};
        dl_iterate_phdr(search_object, &s);
        fn = s.found;
    }
    if (fn != NULL) {
        remember(r);
        atomic_store_explicit(&r->fn, fn, memory_order_release);
    }
    return fn;
}
