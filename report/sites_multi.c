#include "sites_multi.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "textout.h"
#include "sat.h"
#include "sort.h"

#define CMP(a, b) do { if ((a) != (b)) return (a) < (b) ? -1 : 1; } while (0)

static int same_key(const struct site_key *x, const struct site_key *y)
{
    CMP(x->cs, y->cs);
    CMP(x->api, y->api);
    CMP(x->kind, y->kind);
    CMP(x->device, y->device);
    CMP(x->teardown, y->teardown);
    CMP(x->refused, y->refused);
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

int site_table_build(struct site_entry *e, size_t ne, size_t nsnaps, bool by_bytes, bool merge,
                     struct site_table *t)
{
    memset(t, 0, sizeof *t);
    t->nsnaps = nsnaps;
    t->by_bytes = by_bytes;
    if (ne == 0)
        return 0;
    sort_array(e, ne, sizeof *e, by_site);
    size_t nrows = 0;
    for (size_t i = 0; i < ne; i++)
        nrows += i == 0 || same_key(&e[i - 1].k, &e[i].k) != 0;
    t->row = calloc(nrows, sizeof *t->row);
    t->cells = calloc(nrows * nsnaps, 2 * sizeof *t->cells);
    if (t->row == NULL || t->cells == NULL) {
        site_table_free(t);
        return -1;
    }
    struct site_row *r = NULL;
    for (size_t i = 0; i < ne; i++) {
        if (i == 0 || same_key(&e[i - 1].k, &e[i].k) != 0) {
            r = &t->row[t->n];
            *r = (struct site_row){.k = e[i].k, .count = &t->cells[2 * t->n * nsnaps],
                                   .bytes = &t->cells[(2 * t->n + 1) * nsnaps],
                                   .first_ptr = e[i].ptr, .first_time_ns = e[i].time_ns};
            t->n++;
        }
        size_t s = e[i].snap;
        if (r->count[s] == 0)
            r->present++;
        r->count[s] = sat_add(r->count[s], e[i].count);
        r->bytes[s] = sat_add(r->bytes[s], e[i].bytes);
        r->total = sat_add(r->total, e[i].count);
        r->total_bytes = sat_add(r->total_bytes, e[i].bytes);
    }
    for (size_t i = 0; i < t->n; i++) {
        r = &t->row[i];
        const uint64_t *v = by_bytes ? r->bytes : r->count;
        uint64_t a = v[0], b = v[nsnaps - 1];
        r->shrank = b < a;
        r->change = b < a ? a - b : b - a;
        for (size_t k = 1; k < nsnaps && !r->varies; k++)
            r->varies = v[k] != v[0];
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
    memset(t, 0, sizeof *t);
}

void put_series(FILE *f, const uint64_t *v, size_t n, bool commas)
{
    for (size_t k = 0; k < n; k++) {
        char c[32];
        if (commas)
            fmt_commas(c, sizeof c, v[k]);
        else
            snprintf(c, sizeof c, "%" PRIu64, v[k]);
        fprintf(f, "%s%s", k ? " -> " : "", c);
    }
}

void put_sites_rest(FILE *f, const struct site_table *t, size_t shown, const char *same)
{
    size_t listed = same ? t->nchanged : t->n; /* a diff lists the changed */
    if (shown < listed) {
        fputs("\n(", f);
        put_count(f, listed - shown, same ? "more changed stack" : "more stack");
        fputs(" not shown; --top N shows more)\n", f);
    }
    if (same && t->nchanged < t->n) {
        fputs("\n(", f);
        put_count(f, t->n - t->nchanged, "stack");
        fprintf(f, " with the same %s in every snapshot)\n", same);
    }
}
