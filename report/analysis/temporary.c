#include "analysis/temporary.h"

#include <stdbool.h>

#include "snapshot_format.h"
#include "util/sat.h"
#include "util/sort.h"
#include "util/xalloc.h"

/* One allocation of the history: its site and whether it was temporary. */
struct temp_alloc {
    uint32_t cs, stack_id;
    uint16_t api, kind;
    bool temporary;
    uint64_t size;
};

/* A site is a shown stack, API and kind: one number to sort and fold by. */
static uint64_t site_key(const struct temp_alloc *a)
{
    return (uint64_t)a->cs << 32 | (uint64_t)a->api << 16 | a->kind;
}

/* By site, then the lowest stack id first (the site's id). */
static int by_key(const void *a, const void *b)
{
    const struct temp_alloc *x = a, *y = b;
    uint64_t kx = site_key(x), ky = site_key(y);
    if (kx != ky)
        return kx < ky ? -1 : 1;
    return x->stack_id < y->stack_id ? -1 : x->stack_id > y->stack_id;
}

static int by_temporary(const void *a, const void *b)
{
    const struct temp_site *x = a, *y = b;
    if (x->temporary != y->temporary)
        return x->temporary > y->temporary ? -1 : 1;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return x->stack_id < y->stack_id ? -1 : x->stack_id > y->stack_id;
}

static size_t count_allocs(const struct snapshot *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nevents; i++)
        n += s->events[i].type == GL_EV_ALLOC;
    return n;
}

/* The history's allocations in order, each marked temporary when the next
 * allocation or free after it was its own free (same pointer and device):
 * heaptrack's rule, where any free ends the chance of the one before. */
static void mark_allocs(const struct snapview *v, struct temp_alloc *out)
{
    const struct snapshot *s = v->s;
    const struct snap_event *last = NULL; /* the allocation just made */
    size_t n = 0;
    for (size_t i = 0; i < s->nevents; i++) {
        const struct snap_event *e = &s->events[i];
        if (e->type == GL_EV_ALLOC) {
            out[n++] = (struct temp_alloc){.cs = sview_cs(v, e->stack_id), .stack_id = e->stack_id,
                                           .api = e->api, .kind = e->kind, .size = e->size};
            last = e;
        } else if (e->type == GL_EV_FREE) {
            if (last && last->ptr == e->ptr && last->device == e->device)
                out[n - 1].temporary = true;
            last = NULL;
        }
    }
}

/* Allocations sorted by site into one entry per site that has a temporary
 * one, in place; returns how many. */
static size_t fold_sites(struct temp_alloc *a, size_t n, struct temp_site *site)
{
    size_t ns = 0;
    for (size_t i = 0; i < n;) {
        struct temp_site t = {.cs = a[i].cs, .stack_id = a[i].stack_id, .api = a[i].api, .kind = a[i].kind};
        uint64_t key = site_key(&a[i]);
        for (; i < n && site_key(&a[i]) == key; i++) {
            t.allocs++;
            if (a[i].temporary) {
                t.temporary++;
                t.bytes = sat_add(t.bytes, a[i].size);
            }
        }
        if (t.temporary)
            site[ns++] = t;
    }
    return ns;
}

int temporaries_build(const struct snapview *v, struct temporaries *out)
{
    *out = (struct temporaries){0};
    size_t n = count_allocs(v->s);
    if (n == 0)
        return 0;
    struct temp_alloc *a = xmalloc(n * sizeof *a);
    struct temp_site *site = xmalloc(n * sizeof *site);
    if (a == NULL || site == NULL) {
        free(a);
        free(site);
        return -1;
    }
    mark_allocs(v, a);
    sort_array(a, n, sizeof *a, by_key);
    size_t ns = fold_sites(a, n, site);
    free(a);
    sort_array(site, ns, sizeof *site, by_temporary);
    out->site = site;
    out->n = ns;
    out->allocs = n;
    for (size_t i = 0; i < ns; i++) {
        out->temporary += site[i].temporary;
        out->bytes = sat_add(out->bytes, site[i].bytes);
    }
    return 0;
}

void temporaries_free(struct temporaries *t)
{
    free(t->site);
    *t = (struct temporaries){0};
}
