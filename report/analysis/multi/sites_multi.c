#include "analysis/multi/sites_multi.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/sat.h"
#include "util/sort.h"
#include "util/xalloc.h"

#define CMP(a, b) do { if ((a) != (b)) return (a) < (b) ? -1 : 1; } while (0)

static int same_key(const struct site_key *x, const struct site_key *y)
{
    CMP(x->cs, y->cs);
    CMP(x->api, y->api);
    CMP(x->kind, y->kind);
    CMP(x->device, y->device);
    CMP(x->teardown, y->teardown);
    CMP(x->refused, y->refused);
    CMP(x->twice, y->twice);
    CMP(x->rule, y->rule);
    return 0;
}

static int by_site(const void *a, const void *b)
{
    const struct site_entry *x = a, *y = b;
    int c = same_key(&x->k, &y->k);
    if (c)
        return c;
    CMP(x->snap, y->snap);
    CMP(x->time_ns, y->time_ns);
    return 0;
}

/* The sort's comparators take no context: the measure is set per build
 * (the reporter is single-threaded). */
static bool g_by_bytes;

static uint64_t total_of(const struct site_row *r) { return g_by_bytes ? r->total_bytes : r->total; }

/* Largest total first; ties: refused first, then the key, so the order is
 * total (keys are unique). */
static int by_total(const void *a, const void *b)
{
    const struct site_row *x = a, *y = b;
    CMP(total_of(y), total_of(x));
    CMP(y->total, x->total);
    CMP(y->k.refused, x->k.refused);
    return same_key(&x->k, &y->k);
}

/* Rows that vary first, then by net change, then as by_total. */
static int by_change(const void *a, const void *b)
{
    const struct site_row *x = a, *y = b;
    CMP(y->varies, x->varies);
    CMP(y->change, x->change);
    return by_total(a, b);
}

/* Whether the measure differs between snapshots; a snapshot without a
 * cell has 0. */
static bool varies(const struct snapcell *c, size_t nc, size_t nsnaps, bool by_bytes)
{
    uint64_t v0 = by_bytes ? c[0].b : c[0].a;
    if (nc < nsnaps && v0 != 0)
        return true;
    for (size_t i = 1; i < nc; i++)
        if ((by_bytes ? c[i].b : c[i].a) != v0)
            return true;
    return false;
}

int site_table_build(struct site_entry *e, size_t ne, size_t nsnaps, bool by_bytes, bool merge,
                     struct site_table *t)
{
    memset(t, 0, sizeof *t);
    t->nsnaps = nsnaps;
    t->by_bytes = by_bytes;
    if (ne == 0)
        return 0;
    sort_array(e, ne, sizeof *e, by_site);
    size_t nrows = 0, ncells = 0;
    for (size_t i = 0; i < ne; i++) {
        bool row = i == 0 || same_key(&e[i - 1].k, &e[i].k) != 0;
        nrows += row;
        ncells += row || e[i - 1].snap != e[i].snap;
    }
    t->row = xcalloc(nrows, sizeof *t->row);
    t->cells = xcalloc(ncells, sizeof *t->cells);
    t->scratch = xcalloc(2 * nsnaps, sizeof *t->scratch);
    if (t->row == NULL || t->cells == NULL || t->scratch == NULL) {
        site_table_free(t);
        return -1;
    }
    struct site_row *r = NULL;
    struct snapcell *c = NULL;
    for (size_t i = 0; i < ne; i++) {
        bool row = i == 0 || same_key(&e[i - 1].k, &e[i].k) != 0;
        if (row) {
            r = &t->row[t->n++];
            *r = (struct site_row){.k = e[i].k, .cells = c ? c + 1 : t->cells,
                                   .first_ptr = e[i].ptr, .first_time_ns = e[i].time_ns};
        }
        if (row || e[i - 1].snap != e[i].snap) {
            c = c ? c + 1 : t->cells;
            *c = (struct snapcell){.snap = (uint32_t)e[i].snap};
            r->present++;
        }
        c->a = sat_add(c->a, e[i].count);
        c->b = sat_add(c->b, e[i].bytes);
        r->total = sat_add(r->total, e[i].count);
        r->total_bytes = sat_add(r->total_bytes, e[i].bytes);
    }
    for (size_t i = 0; i < t->n; i++) {
        r = &t->row[i];
        const struct snapcell *first = &r->cells[0], *last = &r->cells[r->present - 1];
        uint64_t a = first->snap == 0 ? (by_bytes ? first->b : first->a) : 0;
        uint64_t b = last->snap == nsnaps - 1 ? (by_bytes ? last->b : last->a) : 0;
        r->shrank = b < a;
        r->change = b < a ? a - b : b - a;
        r->varies = varies(r->cells, r->present, nsnaps, by_bytes);
        t->nchanged += r->varies;
    }
    g_by_bytes = by_bytes;
    /* The sort moves rows, not cells: each row still points at its own. */
    sort_array(t->row, t->n, sizeof *t->row, merge ? by_total : by_change);
    return 0;
}

void site_table_free(struct site_table *t)
{
    free(t->row);
    free(t->cells);
    free(t->scratch);
    memset(t, 0, sizeof *t);
}

void site_expand(const struct site_table *t, const struct site_row *r, const uint64_t **count,
                 const uint64_t **bytes)
{
    cells_expand(r->cells, r->present, t->nsnaps, t->scratch, t->scratch + t->nsnaps);
    *count = t->scratch;
    *bytes = t->scratch + t->nsnaps;
}

