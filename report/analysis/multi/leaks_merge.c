/* See leaks_merge.h.  A leak on every rank at one site is the usual shape of
 * a job's leak (each rank runs the same code); one on some ranks only, or
 * of different sizes, points at rank-dependent code or data. */
#include "analysis/multi/leaks_merge.h"

#include <inttypes.h>
#include <stdlib.h>

#include "analysis/multi/multi.h"
#include "snapshot_format.h"
#include "util/sat.h"
#include "util/sort.h"
#include "util/xalloc.h"

static int cmp_site(const void *pa, const void *pb)
{
    const struct leak_site *a = pa, *b = pb;
    if (a->row->total != b->row->total)
        return a->row->total > b->row->total ? -1 : 1;
    return a->row < b->row ? -1 : a->row > b->row; /* the table's order */
}

int leak_sites_build(const struct mtable *t, uint64_t min_bytes, struct leak_sites *out)
{
    *out = (struct leak_sites){0};
    if (t->n && !(out->v = xcalloc(t->n, sizeof *out->v)))
        return -1;
    for (size_t i = 0; i < t->n; i++) {
        const struct mrow *row = &t->rows[i];
        /* what merge counts as leaked per rank (BY RANK's "outside caches
         * and suppressions"), and at least one byte */
        if (row->rule >= 0 || gl_kind_is_mapping(row->kind) || row->present == 0 || row->total == 0 ||
            row->total < min_bytes)
            continue;
        struct leak_site *ls = &out->v[out->n++];
        *ls = (struct leak_site){.row = row, .min_bytes = UINT64_MAX};
        for (size_t c = 0; c < row->present; c++) {
            uint64_t b = row->cells[c].a;
            if (b < ls->min_bytes) {
                ls->min_bytes = b;
                ls->min_snap = row->cells[c].snap;
            }
            if (b > ls->max_bytes) {
                ls->max_bytes = b;
                ls->max_snap = row->cells[c].snap;
            }
        }
        out->bytes = sat_add(out->bytes, row->total);
    }
    sort_array(out->v, out->n, sizeof *out->v, cmp_site);
    return 0;
}

void leak_sites_free(struct leak_sites *l)
{
    free(l->v);
    *l = (struct leak_sites){0};
}

