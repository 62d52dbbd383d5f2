#include "analysis/multi/bad_frees_multi.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/bad_frees.h"
#include "analysis/multi/multi.h"
#include "snapshot_format.h"
#include "util/sat.h"
#include "util/xalloc.h"

int free_table_build(struct msnap *m, size_t n, bool merge, struct free_table *t)
{
    memset(t, 0, sizeof *t);
    t->nsnaps = n;
    t->s.nsnaps = n;
    t->count = xcalloc(n, sizeof *t->count);
    t->refused_count = xcalloc(n, sizeof *t->refused_count);
    if (t->count == NULL || t->refused_count == NULL)
        goto fail;
    size_t ne = 0;
    for (size_t i = 0; i < n; i++)
        ne += m[i].s.nbad_frees; /* at most 256 per snapshot (snap_read.c) */
    if (ne == 0)
        return 0;
    struct site_entry *e = xmalloc(ne * sizeof *e);
    if (e == NULL)
        goto fail;
    ne = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < m[i].s.nbad_frees; k++) {
            const struct snap_bad_free *b = &m[i].s.bad_frees[k];
            bool refused = (b->flags & GL_BAD_FREE_F_REJECTED) != 0;
            e[ne++] = (struct site_entry){
                .k = {.cs = sview_cs(&m[i].v, b->stack_id), .api = b->api, .device = b->device,
                      .rule = -1, .refused = refused, .twice = bad_free_is_double(&m[i].s, b)},
                .snap = i, .count = b->count, .ptr = b->ptr, .time_ns = b->time_ns};
            t->count[i] = sat_add(t->count[i], b->count);
            if (refused)
                t->refused_count[i] = sat_add(t->refused_count[i], b->count);
        }
    int rc = site_table_build(e, ne, n, false, merge, &t->s);
    free(e);
    if (rc == 0)
        return 0;
fail:
    free_table_free(t);
    return -1;
}

void free_table_free(struct free_table *t)
{
    site_table_free(&t->s);
    free(t->count);
    free(t->refused_count);
    memset(t, 0, sizeof *t);
}

bool free_table_refused_grew(const struct free_table *t)
{
    for (size_t i = 0; i < t->s.n; i++)
        if (t->s.row[i].k.refused && !t->s.row[i].shrank && t->s.row[i].change > 0)
            return true;
    return false;
}

