#include "hooks/hook_table.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <string.h>

#include "base/internal.h"
#include "base/self.h"
#include "resolve/entry_abi.h"
#include "resolve/hook_list.h"

/* The hooks are defined in the hooks_*.c files with GL_HOOK, each with its
 * own type; this file needs only their addresses, which GL_HOOK keeps in
 * gl_hook_ptr_<name>.  (Declaring the hooks here under a generic type would
 * give one symbol two types, which link-time optimisation rejects.) */
#define DECLARE(n) extern struct gl_real gl_real_##n; extern void *const gl_hook_ptr_##n;
GL_ALL_HOOKS(DECLARE)
#undef DECLARE

static const struct gl_hook_entry entries[] = {
#define ENTRY(n) {#n, &gl_real_##n, &gl_hook_ptr_##n},
    GL_ALL_HOOKS(ENTRY)
#undef ENTRY
};

const struct gl_hook_entry *gl_hook_by_name(const char *name)
{
    /* Every intercepted name starts with "cu": reject the rest at once. */
    if (name == NULL || name[0] != 'c' || name[1] != 'u')
        return NULL;
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
        if (!strcmp(entries[i].name, name))
            return &entries[i];
    return NULL;
}

const struct gl_hook_entry *gl_hook_for_query(const char *symbol, int cuda_version, unsigned long long flags)
{
    return gl_hook_by_name(gl_entry_abi_hook_name(symbol, cuda_version, flags));
}

void *gl_wrap_entry_point(const char *symbol, int cuda_version, unsigned long long flags, void *fn)
{
    if (fn == NULL || gl_is_own_address((uintptr_t)fn))
        return fn;
    const struct gl_hook_entry *e = gl_hook_for_query(symbol, cuda_version, flags);
    if (e == NULL)
        return fn;
    /* Cross-check with the driver's own export table where it has one: if
     * the returned function is exported under another name, its ABI is not
     * the one we would wrap it with, so leave it alone. */
    Dl_info info;
    if (dladdr(fn, &info) != 0 && info.dli_sname != NULL && info.dli_saddr == fn &&
        strcmp(info.dli_sname, e->name) != 0)
        return fn;
    /* Fill the hook's slot with the driver's function unless it already has
     * one (from RTLD_NEXT, or an earlier query): either way the slot holds an
     * implementation of exactly this ABI, so the hook is safe to hand out. */
    void *expected = NULL;
    if (strcmp(symbol, "cuGetProcAddress") == 0)
        /* Except cuGetProcAddress itself: NVIDIA's runtime makes every
         * request after its first 4 through the one it fetched, not the one
         * it dlsym'd, so the hook does the same from then on. */
        atomic_store(&e->real->fn, fn);
    else
        atomic_compare_exchange_strong(&e->real->fn, &expected, fn);
    return gl_hook_fn(e);
}
