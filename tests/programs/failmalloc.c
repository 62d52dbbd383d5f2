/* Preloaded before libgpuleak: malloc, calloc, realloc and posix_memalign
 * fail when called from libgpuleak itself (never from anything else), on
 * every call (FAILMALLOC=all) or every Nth (FAILMALLOC=N).  The program
 * must not notice: tests/t_robust_malloc.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static uintptr_t lo, hi;
static long every;
static atomic_long calls;
static atomic_long failed;

static int find(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    if (info->dlpi_name == NULL || strstr(info->dlpi_name, "libgpuleak") == NULL)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type != PT_LOAD)
            continue;
        uintptr_t s = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
        uintptr_t e = s + info->dlpi_phdr[i].p_memsz;
        if (lo == 0 || s < lo)
            lo = s;
        if (e > hi)
            hi = e;
    }
    return 1;
}

__attribute__((constructor)) static void init(void)
{
    const char *v = getenv("FAILMALLOC");
    every = v == NULL ? 0 : !strcmp(v, "all") ? 1 : atol(v);
    dl_iterate_phdr(find, NULL);
}

static int should_fail(void *caller)
{
    uintptr_t c = (uintptr_t)caller;
    if (every <= 0 || c < lo || c >= hi)
        return 0;
    if (atomic_fetch_add(&calls, 1) % every != 0)
        return 0;
    atomic_fetch_add(&failed, 1);
    errno = ENOMEM;
    return 1;
}

void *malloc(size_t n)
{
    return should_fail(__builtin_return_address(0)) ? NULL : __libc_malloc(n);
}

void *calloc(size_t a, size_t b)
{
    return should_fail(__builtin_return_address(0)) ? NULL : __libc_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
    return should_fail(__builtin_return_address(0)) ? NULL : __libc_realloc(p, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
    if (should_fail(__builtin_return_address(0)))
        return ENOMEM;
    void *p = __libc_memalign(align, n);
    if (p == NULL)
        return ENOMEM;
    *out = p;
    return 0;
}
