/* diff and merge.  Both fill one table keyed by (cstack, kind, device,
 * rule) with the live bytes and counts each snapshot has for the key, then
 * rank it:
 *   diff:  keys whose bytes grew at every step over three or more
 *          snapshots first ("suspected leak (monotonic growth)", never for
 *          memory a suppression rule matches), by growth; then every other
 *          key that changed, by the size of the change.
 *   merge: keys present in only some snapshots, by bytes summed over all. */
#include "multi.h"
#include "sat.h"
#include "sort.h"

#include <stdlib.h>
#include <string.h>

static uint64_t key_hash(uint32_t cs, uint16_t kind, int32_t dev, int32_t rule)
{
    uint64_t h = ((uint64_t)cs << 32) ^ ((uint64_t)(uint32_t)dev << 8) ^ kind ^
                 ((uint64_t)(uint32_t)rule << 20);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

static int mt_rehash(struct mtable *t)
{
    size_t n = t->nslots ? 2 * t->nslots : 1024;
    uint32_t *ns = calloc(n, sizeof *ns);
    if (!ns)
        return -1;
    for (size_t i = 0; i < t->n; i++) {
        const struct mrow *r = &t->rows[i];
        size_t h = key_hash(r->cs, r->kind, r->device, r->rule) & (n - 1);
        while (ns[h])
            h = (h + 1) & (n - 1);
        ns[h] = (uint32_t)(i + 1);
    }
    free(t->slots);
    t->slots = ns;
    t->nslots = n;
    return 0;
}

/* The row of a key (created zeroed), or NULL when out of memory.  Row
 * value arrays are stored as offsets until mt_fix() turns them into
 * pointers (the cell array moves while it grows). */
static struct mrow *mt_get(struct mtable *t, uint32_t cs, uint16_t kind, int32_t dev,
                           int32_t rule)
{
    if ((t->n + 1) * 2 > t->nslots && mt_rehash(t))
        return NULL;
    size_t h = key_hash(cs, kind, dev, rule) & (t->nslots - 1);
    while (t->slots[h]) {
        struct mrow *r = &t->rows[t->slots[h] - 1];
        if (r->cs == cs && r->kind == kind && r->device == dev && r->rule == rule)
            return r;
        h = (h + 1) & (t->nslots - 1);
    }
    if (t->n == t->cap) {
        size_t nc = t->cap ? 2 * t->cap : 256;
        struct mrow *nr = realloc(t->rows, nc * sizeof *nr);
        if (!nr)
            return NULL;
        t->rows = nr;
        t->cap = nc;
    }
    size_t need = (t->n + 1) * 2 * t->nsnaps;
    if (need > t->ncells_cap) {
        size_t nc = t->ncells_cap ? 2 * t->ncells_cap : 1024;
        while (nc < need)
            nc *= 2;
        uint64_t *c = realloc(t->cells, nc * sizeof *c);
        if (!c)
            return NULL;
        t->cells = c;
        t->ncells_cap = nc;
    }
    memset(t->cells + t->n * 2 * t->nsnaps, 0, 2 * t->nsnaps * sizeof *t->cells);
    struct mrow *r = &t->rows[t->n];
    memset(r, 0, sizeof *r);
    r->cs = cs;
    r->kind = kind;
    r->device = dev;
    r->rule = rule;
    r->bytes = (uint64_t *)(uintptr_t)(t->n * 2 * t->nsnaps); /* offset for now */
    t->slots[h] = (uint32_t)(++t->n);
    return r;
}

static uint64_t *cell(struct mtable *t, struct mrow *r)
{
    return t->cells + (size_t)(uintptr_t)r->bytes;
}

static void mt_fix(struct mtable *t)
{
    for (size_t i = 0; i < t->n; i++) {
        struct mrow *r = &t->rows[i];
        uint64_t *c = cell(t, r);
        r->bytes = c;
        r->count = c + t->nsnaps;
    }
}

static void mt_free(struct mtable *t)
{
    free(t->rows);
    free(t->cells);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

/* Adds the live allocations of snapshot i; merge ignores the device (ranks
 * use different ordinals for the same code). */
static int mt_fill(struct mtable *t, struct msnap *m, size_t i, bool by_device)
{
    const struct snapshot *s = &m->s;
    for (size_t k = 0; k < s->nallocs; k++) {
        const struct snap_alloc *a = &s->allocs[k];
        struct mrow *r = mt_get(t, sview_cs(&m->v, a->stack_id), a->kind,
                                by_device ? a->device : -2, sview_alloc_rule(&m->v, a));
        if (!r)
            return -1;
        uint64_t *c = cell(t, r);
        c[i] = sat_add(c[i], a->size);
        c[t->nsnaps + i]++;
    }
    return 0;
}

static void finish_rows(struct mtable *t)
{
    mt_fix(t);
    size_t n = t->nsnaps;
    for (size_t i = 0; i < t->n; i++) {
        struct mrow *r = &t->rows[i];
        uint64_t a = r->bytes[0], b = r->bytes[n - 1];
        r->shrank = b < a;
        r->growth = b < a ? a - b : b - a;
        r->monotonic = n >= 3;
        for (size_t k = 0; k < n; k++) {
            if (k && r->bytes[k] <= r->bytes[k - 1])
                r->monotonic = false;
            if (r->count[k])
                r->present++;
            r->total = sat_add(r->total, r->bytes[k]);
        }
    }
}

#define CMP(x, y) do { if ((x) != (y)) return (x) < (y) ? -1 : 1; } while (0)

static int tie_break(const struct mrow *a, const struct mrow *b)
{
    CMP(a->kind, b->kind);
    CMP(a->device, b->device);
    CMP(a->rule, b->rule);
    CMP(a->cs, b->cs);
    return 0;
}

static int diff_class(const struct mrow *r)
{
    if (r->monotonic && r->rule < 0)
        return 0;
    return r->growth || r->present != 0 ? 1 : 2;
}

static int changed(const struct mrow *r, size_t n)
{
    for (size_t k = 1; k < n; k++)
        if (r->bytes[k] != r->bytes[0] || r->count[k] != r->count[0])
            return 1;
    return 0;
}

static size_t g_nsnaps; /* for the comparators below (sort_array has no context) */

static int cmp_diff(const void *pa, const void *pb)
{
    const struct mrow *a = pa, *b = pb;
    int ca = changed(a, g_nsnaps) ? diff_class(a) : 2;
    int cb = changed(b, g_nsnaps) ? diff_class(b) : 2;
    CMP(ca, cb);
    CMP(b->growth, a->growth);
    CMP(a->shrank, b->shrank); /* growth before shrinkage of equal size */
    return tie_break(a, b);
}

static int cmp_new(const void *pa, const void *pb)
{
    const struct newgroup *a = pa, *b = pb;
    CMP(b->bytes, a->bytes);
    CMP(b->count, a->count);
    CMP(a->kind, b->kind);
    CMP(a->device, b->device);
    CMP(a->cs, b->cs);
    CMP(a->rule, b->rule);
    return 0;
}

static int fresh_since(struct msnap *first, struct msnap *last, const struct analyze_opts *o,
                       struct diff_result *d)
{
    const struct snapshot *s = &last->s;
    uint64_t t0 = first->s.proc.snapshot_mono_ns;
    /* few groups: a linear table is enough (bounded by the stacks) */
    struct mtable t = {.nsnaps = 1};
    for (size_t k = 0; k < s->nallocs; k++) {
        const struct snap_alloc *a = &s->allocs[k];
        if (a->time_ns <= t0)
            continue;
        struct mrow *r = mt_get(&t, sview_cs(&last->v, a->stack_id), a->kind, a->device,
                                sview_alloc_rule(&last->v, a));
        if (!r) {
            mt_free(&t);
            return -1;
        }
        uint64_t *c = cell(&t, r);
        c[0] = sat_add(c[0], a->size);
        c[1]++;
        d->fresh_bytes = sat_add(d->fresh_bytes, a->size);
        d->fresh_count++;
    }
    mt_fix(&t);
    d->fresh = calloc(t.n ? t.n : 1, sizeof *d->fresh);
    if (!d->fresh) {
        mt_free(&t);
        return -1;
    }
    for (size_t i = 0; i < t.n; i++) {
        const struct mrow *r = &t.rows[i];
        d->fresh[i] = (struct newgroup){r->cs, r->kind, r->device, r->rule, r->bytes[0],
                                        r->count[0], 0, 0};
    }
    d->nfresh = t.n;
    mt_free(&t);
    sort_array(d->fresh, d->nfresh, sizeof *d->fresh, cmp_new);
    size_t k = 0;
    while (k < d->nfresh && d->fresh[k].bytes >= o->min_bytes)
        k++;
    d->nfresh_shown = o->top && k > o->top ? o->top : k;
    return 0;
}

int diff_build(struct msnap *m, size_t n, const struct analyze_opts *o,
               struct diff_result *d)
{
    memset(d, 0, sizeof *d);
    d->t.nsnaps = n;
    for (size_t i = 0; i < n; i++)
        if (mt_fill(&d->t, &m[i], i, true))
            goto fail;
    finish_rows(&d->t);
    g_nsnaps = n;
    sort_array(d->t.rows, d->t.n, sizeof *d->t.rows, cmp_diff);
    size_t k = 0;
    while (k < d->t.n && changed(&d->t.rows[k], n) && d->t.rows[k].growth >= o->min_bytes)
        k++;
    d->t.nshown = o->top && k > o->top ? o->top : k;
    const struct snap_process *a = &m[0].s.proc, *b = &m[n - 1].s.proc;
    d->same_process = a->pid == b->pid && a->start_unix_ns == b->start_unix_ns &&
                      strcmp(a->host.s, b->host.s) == 0;
    if (d->same_process && fresh_since(&m[0], &m[n - 1], o, d))
        goto fail;
    if (free_table_build(m, n, false, &d->frees) || torn_table_build(m, n, false, &d->torn) ||
        diff_devices_build(m, n, &d->devs))
        goto fail;
    return 0;
fail:
    diff_free(d);
    return -1;
}

void diff_free(struct diff_result *d)
{
    mt_free(&d->t);
    free(d->fresh);
    free_table_free(&d->frees);
    torn_table_free(&d->torn);
    diff_devices_free(&d->devs);
    memset(d, 0, sizeof *d);
}

static int cmp_merge(const void *pa, const void *pb)
{
    const struct mrow *a = pa, *b = pb;
    int pa_all = a->present == g_nsnaps, pb_all = b->present == g_nsnaps;
    CMP(pa_all, pb_all);
    CMP(b->total, a->total);
    return tie_break(a, b);
}

int merge_build(struct msnap *m, size_t n, const struct analyze_opts *o,
                struct merge_result *r)
{
    memset(r, 0, sizeof *r);
    r->snaps = calloc(n, sizeof *r->snaps);
    if (!r->snaps)
        return -1;
    r->t.nsnaps = n;
    for (size_t i = 0; i < n; i++) {
        const struct snapshot *s = &m[i].s;
        struct merge_snap *ms = &r->snaps[i];
        for (size_t k = 0; k < s->nallocs; k++) {
            ms->live_bytes = sat_add(ms->live_bytes, s->allocs[k].size);
            ms->live_count++;
            /* mappings of other processes' memory are reported on their own */
            if (sview_alloc_rule(&m[i].v, &s->allocs[k]) < 0 && !gl_kind_is_mapping(s->allocs[k].kind)) {
                ms->leaked_bytes = sat_add(ms->leaked_bytes, s->allocs[k].size);
                ms->leaked_count++;
            }
        }
        ms->peak_device = -2;
        for (size_t k = 0; k < s->ndevices; k++)
            if (ms->peak_device == -2 || s->devices[k].peak_bytes > ms->peak_bytes) {
                ms->peak_bytes = s->devices[k].peak_bytes;
                ms->peak_device = s->devices[k].device;
                ms->peak_time_ns = s->devices[k].peak_time_ns;
            }
        if (ms->peak_bytes > r->snaps[r->largest].peak_bytes)
            r->largest = i;
        if (mt_fill(&r->t, &m[i], i, false))
            goto fail;
    }
    finish_rows(&r->t);
    g_nsnaps = n;
    sort_array(r->t.rows, r->t.n, sizeof *r->t.rows, cmp_merge);
    size_t k = 0;
    while (k < r->t.n && r->t.rows[k].present < n && r->t.rows[k].total >= o->min_bytes)
        k++;
    r->t.nshown = o->top && k > o->top ? o->top : k;
    if (free_table_build(m, n, true, &r->frees) || torn_table_build(m, n, true, &r->torn))
        goto fail;
    return 0;
fail:
    merge_free(r);
    return -1;
}

void merge_free(struct merge_result *r)
{
    mt_free(&r->t);
    free(r->snaps);
    free_table_free(&r->frees);
    torn_table_free(&r->torn);
    memset(r, 0, sizeof *r);
}
