#include "analysis/bad_frees.h"

#include "analysis/bad_free_block.h"

#include <inttypes.h>
#include <stdlib.h>

#include "snapshot_format.h"
#include "util/sat.h"
#include "util/sort.h"
#include "util/xalloc.h"

static int cmp(const void *a, const void *b)
{
    const struct snap_bad_free *x = *(const struct snap_bad_free *const *)a;
    const struct snap_bad_free *y = *(const struct snap_bad_free *const *)b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    if (x->time_ns != y->time_ns)
        return x->time_ns < y->time_ns ? -1 : 1;
    if (x->stack_id != y->stack_id)
        return x->stack_id < y->stack_id ? -1 : 1;
    return x->api < y->api ? -1 : x->api > y->api;
}

const struct snap_bad_free **bad_frees_sorted(const struct snapshot *s, struct bad_free_totals *t)
{
    *t = (struct bad_free_totals){.sites = s->nbad_frees};
    if (s->nbad_frees == 0)
        return NULL;
    const struct snap_bad_free **v = xcalloc(s->nbad_frees, sizeof *v);
    for (size_t i = 0; i < s->nbad_frees; i++) {
        const struct snap_bad_free *b = &s->bad_frees[i];
        v[i] = b;
        t->count = sat_add(t->count, b->count);
        if (b->flags & GL_BAD_FREE_F_REJECTED)
            t->refused_count = sat_add(t->refused_count, b->count);
        if (bad_free_is_double(s, b)) {
            t->double_count = sat_add(t->double_count, b->count);
            t->double_sites++;
        }
    }
    sort_array(v, s->nbad_frees, sizeof *v, cmp);
    return v;
}

const struct snap_event *bad_free_previous(const struct snapshot *s, const struct snap_bad_free *b,
                                           const struct snap_event **alloc)
{
    *alloc = NULL;
    size_t i = s->nevents;
    while (i > 0) {
        const struct snap_event *e = &s->events[--i];
        if (e->type != GL_EV_FREE || e->ptr != b->ptr || e->time_ns > b->time_ns)
            continue;
        for (size_t k = i; k > 0;) {
            const struct snap_event *a = &s->events[--k];
            if (a->type == GL_EV_ALLOC && a->ptr == e->ptr && a->seq < e->seq) {
                *alloc = a;
                break;
            }
        }
        return e;
    }
    return NULL;
}


bool bad_free_is_double(const struct snapshot *s, const struct snap_bad_free *b)
{
    const struct snap_event *alloc;
    return bad_free_refused(b) && bad_free_previous(s, b, &alloc) != NULL;
}
