#include "analysis/multi/mtable.h"

#include <stdlib.h>
#include <string.h>

#include "util/sat.h"
#include "util/slots.h"
#include "util/xalloc.h"

static uint64_t key_hash(uint32_t cs, uint16_t kind, int32_t dev, int32_t rule)
{
    uint64_t h = ((uint64_t)cs << 32) ^ ((uint64_t)(uint32_t)dev << 8) ^ kind ^
                 ((uint64_t)(uint32_t)rule << 20);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

int mt_init(struct mtable *t, size_t nsnaps)
{
    memset(t, 0, sizeof *t);
    t->nsnaps = nsnaps;
    t->scratch = xcalloc(nsnaps ? 2 * nsnaps : 1, sizeof *t->scratch);
    return t->scratch ? 0 : -1;
}

static uint64_t row_hash(const void *ctx, uint32_t entry)
{
    const struct mrow *r = &((const struct mtable *)ctx)->rows[entry - 1];
    return key_hash(r->cs, r->kind, r->device, r->rule);
}

/* The row of a key (created zeroed), or NULL when out of memory. */
static struct mrow *row_of(struct mtable *t, uint32_t cs, uint16_t kind, int32_t dev, int32_t rule)
{
    if ((t->n + 1) * 2 > t->nslots)
        slots_grow(&t->slots, &t->nslots, row_hash, t);
    size_t h = key_hash(cs, kind, dev, rule) & (t->nslots - 1);
    while (t->slots[h]) {
        struct mrow *r = &t->rows[t->slots[h] - 1];
        if (r->cs == cs && r->kind == kind && r->device == dev && r->rule == rule)
            return r;
        h = (h + 1) & (t->nslots - 1);
    }
    if (t->n >= UINT32_MAX - 1) /* slots hold row + 1 in 32 bits */
        return NULL;
    if (t->n == t->cap)
        t->rows = xgrow(t->rows, &t->cap, 256, sizeof *t->rows);
    struct mrow *r = &t->rows[t->n];
    *r = (struct mrow){.cs = cs, .kind = kind, .device = dev, .rule = rule};
    t->slots[h] = (uint32_t)(++t->n);
    return r;
}

struct mrow *mt_find(struct mtable *t, uint32_t cs, uint16_t kind, int32_t dev, int32_t rule)
{
    if (t->nslots == 0)
        return NULL;
    size_t h = key_hash(cs, kind, dev, rule) & (t->nslots - 1);
    for (; t->slots[h]; h = (h + 1) & (t->nslots - 1)) {
        struct mrow *r = &t->rows[t->slots[h] - 1];
        if (r->cs == cs && r->kind == kind && r->device == dev && r->rule == rule)
            return r;
    }
    return NULL;
}

int mt_add(struct mtable *t, uint32_t cs, uint16_t kind, int32_t dev, int32_t rule, size_t snap,
           uint64_t bytes)
{
    struct mrow *r = row_of(t, cs, kind, dev, rule);
    if (!r)
        return -1;
    /* cells are appended in snapshot order: the row's newest one is this
     * snapshot's, or it has none yet */
    if (r->last == 0 || t->cells[r->last - 1].snap != snap) {
        if (t->ncells == t->ncells_cap)
            t->cells = xgrow(t->cells, &t->ncells_cap, 1024, sizeof *t->cells);
        t->cells[t->ncells] = (struct snapcell){.snap = (uint32_t)snap, .row = (uint32_t)(r - t->rows)};
        r->last = ++t->ncells;
    }
    struct snapcell *c = &t->cells[r->last - 1];
    c->a = sat_add(c->a, bytes);
    c->b = sat_add(c->b, 1);
    return 0;
}

/* Grew at every step over snapshots 0..n-1, cells c[0..nc) of those: a
 * cell in each of snapshots 1..n-1 (a missing one is 0 bytes, no growth),
 * each above the one before; snapshot 0 may have none (0 bytes). */
static bool grew_every_step(const struct snapcell *c, size_t nc, size_t n)
{
    bool grew = n >= 3 && nc >= n - 1 && c[nc - n + 1].snap == 1;
    for (size_t i = nc - (n - 1); grew && i < nc; i++) {
        uint64_t prev = i == 0 ? 0 : c[i - 1].a;
        grew = c[i].a > prev;
    }
    return grew;
}

/* The row's bytes in snapshot snap (0 without a cell there); cells are in
 * snapshot order, so the last two are the only candidates for snap >= n-2. */
static uint64_t bytes_at(const struct snapcell *c, size_t nc, size_t snap)
{
    for (size_t i = nc; i-- > 0 && c[i].snap >= snap;)
        if (c[i].snap == snap)
            return c[i].a;
    return 0;
}

/* The figures diff and merge rank by, from the row's cells alone (a
 * snapshot without a cell has 0 bytes and 0 allocations there). */
static void figures(struct mrow *r, const struct snapcell *c, size_t nc, size_t n, bool final_last)
{
    uint64_t first = c[0].snap == 0 ? c[0].a : 0;
    uint64_t last = c[nc - 1].snap == n - 1 ? c[nc - 1].a : 0;
    r->shrank = last < first;
    r->growth = last < first ? first - last : last - first;
    r->present = nc;
    r->total = 0;
    for (size_t i = 0; i < nc; i++)
        r->total = sat_add(r->total, c[i].a);
    r->monotonic = grew_every_step(c, nc, n);
    /* An exit snapshot taken after the last step repeats it: where it
     * holds what the one before held, it is no step (docs/reporter.md) */
    if (!r->monotonic && final_last && n >= 4 && bytes_at(c, nc, n - 1) == bytes_at(c, nc, n - 2))
        r->monotonic = grew_every_step(c, nc - (c[nc - 1].snap == n - 1), n - 1);
    /* Some snapshot differs from the first: one without a cell against one
     * with (count 0 against at least 1), or two cells that differ */
    r->changed = nc < n;
    for (size_t i = 1; !r->changed && i < nc; i++)
        r->changed = c[i].a != c[0].a || c[i].b != c[0].b;
}

int mt_finish(struct mtable *t)
{
    /* Counting sort of the cells by row, stable: each row's cells stay in
     * snapshot order. */
    size_t *start = xcalloc(t->n + 1, sizeof *start);
    struct snapcell *sorted = xmalloc((t->ncells ? t->ncells : 1) * sizeof *sorted);
    if (!start || !sorted) {
        free(start);
        free(sorted);
        return -1;
    }
    for (size_t i = 0; i < t->ncells; i++)
        start[t->cells[i].row + 1]++;
    for (size_t r = 0; r < t->n; r++)
        start[r + 1] += start[r];
    for (size_t i = 0; i < t->ncells; i++)
        sorted[start[t->cells[i].row]++] = t->cells[i];
    /* start[r] is now the end of row r's cells, the start of row r + 1's */
    free(t->cells);
    t->cells = sorted;
    t->ncells_cap = t->ncells;
    for (size_t r = 0; r < t->n; r++) {
        size_t from = r ? start[r - 1] : 0;
        struct mrow *row = &t->rows[r];
        row->cells = &t->cells[from];
        row->last = 0;
        figures(row, row->cells, start[r] - from, t->nsnaps, t->final_last);
    }
    free(start);
    return 0;
}

void mt_expand(const struct mtable *t, const struct mrow *r, const uint64_t **bytes,
               const uint64_t **count)
{
    cells_expand(r->cells, r->present, t->nsnaps, t->scratch, t->scratch + t->nsnaps);
    *bytes = t->scratch;
    *count = t->scratch + t->nsnaps;
}

void mt_free(struct mtable *t)
{
    free(t->rows);
    free(t->cells);
    free(t->slots);
    free(t->scratch);
    memset(t, 0, sizeof *t);
}
