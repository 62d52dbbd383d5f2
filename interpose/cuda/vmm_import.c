#include "cuda/vmm_import.h"

#include <errno.h>
#include <stdlib.h>

#include "cuda/vmm.h"
#include "snapshot_format.h"

void gl_vmm_import_mapped(uint64_t va, uint64_t size, int32_t device)
{
    struct gl_where w = gl_where_driver(va);
    if (device >= 0)
        w.device = device; /* the handle's own, as the driver reported it at import */
    gl_call_alloc(w, va, size, 0, GL_KIND_IPC, GL_API_CU_MEM_MAP, GL_SPACE_ADDR);
}

/* The addresses of the imported mappings in the range: in `inl` when they
 * fit, else in an allocated array; *n is how many.  If memory runs out,
 * only the first GL_VMM_UNMAP_INLINE are handled: the others stay recorded,
 * reported as still mapped -- never a crash, never a changed return value. */
static uint64_t *imported_in(uint64_t va, uint64_t size, uint64_t *inl, size_t *n)
{
    size_t want = gl_vmm_imported_in(va, size, inl, GL_VMM_UNMAP_INLINE);
    *n = want < GL_VMM_UNMAP_INLINE ? want : GL_VMM_UNMAP_INLINE;
    if (want <= GL_VMM_UNMAP_INLINE)
        return inl;
    uint64_t *all = malloc(want * sizeof *all);
    if (all == NULL)
        return inl;
    /* A mapping made in the range meanwhile (another thread) is not this
     * unmap's: at most `want` are taken. */
    size_t got = gl_vmm_imported_in(va, size, all, want);
    *n = got < want ? got : want;
    return all;
}

void gl_vmm_unmap_begin(struct gl_vmm_unmap *u, uint64_t va, uint64_t size)
{
    int saved = errno;
    u->saved = u->inline_saved;
    u->n = 0;
    uint64_t inl[GL_VMM_UNMAP_INLINE];
    size_t n;
    uint64_t *vas = imported_in(va, size, inl, &n);
    if (n > GL_VMM_UNMAP_INLINE) {
        struct gl_live *more = malloc(n * sizeof *more);
        if (more != NULL)
            u->saved = more;
        else
            n = GL_VMM_UNMAP_INLINE;
    }
    for (size_t i = 0; i < n; i++) {
        struct gl_live *r = gl_call_free_begin(GL_SPACE_ADDR, vas[i]);
        if (r != NULL)
            u->saved[u->n++] = *r;
    }
    if (vas != inl)
        free(vas);
    errno = saved;
}

void gl_vmm_unmap_end(struct gl_vmm_unmap *u, bool ok)
{
    int saved = errno;
    for (size_t i = 0; i < u->n; i++)
        gl_call_free_end(&u->saved[i], ok, 0);
    if (u->saved != u->inline_saved)
        free(u->saved);
    u->saved = u->inline_saved;
    u->n = 0;
    errno = saved;
}
