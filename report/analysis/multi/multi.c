/* diff and merge.  Both fill one table keyed by (cstack, kind, device,
 * rule) with the live bytes and counts each snapshot has for the key, then
 * rank it:
 *   diff:  keys whose bytes grew at every step over three or more
 *          snapshots first ("suspected leak (monotonic growth)", also for
 *          memory a built-in allocator-cache rule matches: a cache that grows
 *          at every step holds memory the program keeps alive in it, the
 *          commonest PyTorch leak; never for a --suppressions rule's, nor
 *          for segments that PyTorch's own view explains in every snapshot:
 *          its tensors, by line, name what grew, and the stack of such a
 *          segment's cudaMalloc is only the request that overflowed the
 *          cache, often a temporary; torch_multi.h.  A snapshot
 *          without PyTorch's view, in a series where others carry it,
 *          says nothing either way: a stack's segments are PyTorch's when
 *          every snapshot with the view explains them, and one at least
 *          has them), by
 *          growth; then every other key that changed, by the size of the
 *          change.  The exit snapshot of a series (GL_SNAP_F_FINAL, last)
 *          is taken after the last step and repeats it: where a key's
 *          bytes there equal the ones before, it is no step, and growth
 *          over the others still counts (docs/reporter.md).
 *   merge: keys present in only some snapshots, by bytes summed over all. */
#include "analysis/multi/multi.h"
#include "analysis/multi/torch_multi.h"
#include "model/suppress.h"
#include "util/sat.h"
#include "util/sort.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether some snapshot of m[0..n) carries PyTorch's view (one that adds up). */
static bool series_has_torch_view(const struct msnap *m, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (torch_view_known(&m[i]))
            return true;
    return false;
}

/* Adds the live allocations of snapshot i; merge ignores the device (ranks
 * use different ordinals for the same code).  torch_series: some snapshot
 * of the series carries PyTorch's view. */
static int mt_fill(struct mtable *t, struct msnap *m, size_t i, bool by_device, bool torch_series)
{
    const struct snapshot *s = &m->s;
    /* A snapshot without the view, in a series with it, tells no segment
     * of PyTorch's from other memory: its allocations judge neither way.
     * In a series without any (no PyTorch), every allocation is beyond. */
    bool judged = !torch_series || torch_view_known(m);
    for (size_t k = 0; k < s->nallocs; k++) {
        const struct snap_alloc *a = &s->allocs[k];
        uint32_t cs = sview_cs(&m->v, a->stack_id);
        int32_t dev = by_device ? a->device : -2, rule = sview_alloc_rule(&m->v, a);
        if (mt_add(t, cs, a->kind, dev, rule, i, a->size))
            return -1;
        if (!judged)
            continue;
        struct mrow *r = mt_find(t, cs, a->kind, dev, rule);
        /* sview_is_torch_segment names no segment of a view that does not
         * add up (torch_check.h): such a view explains nothing. */
        if (a->kind != GL_KIND_DEVICE || !sview_is_torch_segment(&m->v, a->ptr))
            r->beyond_torch = true;
        else
            r->torch_seen = true;
    }
    return 0;
}

/* A row no snapshot with the view explained (its memory only where the
 * view is unknown) is not PyTorch's for want of evidence. */
static void rows_unexplained_beyond(struct mtable *t)
{
    for (size_t i = 0; i < t->n; i++)
        if (!t->rows[i].torch_seen)
            t->rows[i].beyond_torch = true;
}

/* A sampled snapshot's cells (GPULEAK_MODE=light): each row's sampled
 * allocations become what they stand for (sample_scale_sums, by their
 * average size), so rows are compared and grow by estimates, as the report
 * of one snapshot ranks them.  The row of the allocations not sampled
 * (no stack) keeps its exact figures: they are also in the estimates. */
static void scale_cell(struct snapcell *c, const struct snapshot *s, uint32_t cs)
{
    if (s->sampling.mode == 0 || cs == 0)
        return;
    struct sample_est e = sample_scale_sums(s, c->b, c->a);
    c->a = est_round(e.bytes);
    c->b = est_round(e.count);
}

/* only: the one snapshot of every cell (fresh_since's table), or NULL: m[cell's snap] */
static void scale_cells(struct mtable *t, const struct msnap *m, const struct snapshot *only)
{
    for (size_t i = 0; i < t->ncells; i++)
        scale_cell(&t->cells[i], only ? only : &m[t->cells[i].snap].s, t->rows[t->cells[i].row].cs);
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
    if (r->suspected)
        return 0;
    return r->growth || r->present != 0 ? 1 : 2;
}

static size_t g_nsnaps; /* for cmp_merge (sort_array has no context) */

static int cmp_diff(const void *pa, const void *pb)
{
    const struct mrow *a = pa, *b = pb;
    int ca = a->changed ? diff_class(a) : 2;
    int cb = b->changed ? diff_class(b) : 2;
    CMP(ca, cb);
    /* segments PyTorch's view explains after the rest: their tensors lead */
    CMP(b->beyond_torch, a->beyond_torch);
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
    struct mtable t;
    if (mt_init(&t, 1))
        return -1;
    for (size_t k = 0; k < s->nallocs; k++) {
        const struct snap_alloc *a = &s->allocs[k];
        if (a->time_ns <= t0)
            continue;
        if (mt_add(&t, sview_cs(&last->v, a->stack_id), a->kind, a->device,
                   sview_alloc_rule(&last->v, a), 0, a->size)) {
            mt_free(&t);
            return -1;
        }
        d->fresh_bytes = sat_add(d->fresh_bytes, a->size);
        d->fresh_count = sat_add(d->fresh_count, 1);
    }
    scale_cells(&t, NULL, s);
    d->fresh = xcalloc(t.n ? t.n : 1, sizeof *d->fresh);
    if (!d->fresh || mt_finish(&t)) {
        mt_free(&t);
        return -1;
    }
    for (size_t i = 0; i < t.n; i++) {
        const struct mrow *r = &t.rows[i];
        d->fresh[i] = (struct newgroup){r->cs, r->kind, r->device, r->rule, r->cells[0].a,
                                        r->cells[0].b, 0, 0};
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
    if (mt_init(&d->t, n))
        goto fail;
    d->t.final_last = msnap_final_repeat_possible(m, n);
    bool torch_series = series_has_torch_view(m, n);
    for (size_t i = 0; i < n; i++)
        if (mt_fill(&d->t, &m[i], i, true, torch_series))
            goto fail;
    rows_unexplained_beyond(&d->t);
    scale_cells(&d->t, m, NULL);
    if (mt_finish(&d->t))
        goto fail;
    const struct suppressions *sup = m[0].v.sup;
    for (size_t i = 0; i < d->t.n; i++) {
        struct mrow *r = &d->t.rows[i];
        bool cache = r->rule >= 0 && sup && (size_t)r->rule < sup->n && sup->rules[r->rule].builtin;
        r->suspected = r->monotonic && r->beyond_torch && (r->rule < 0 || cache);
        r->cache_growth = r->suspected && cache;
    }
    sort_array(d->t.rows, d->t.n, sizeof *d->t.rows, cmp_diff);
    size_t k = 0;
    while (k < d->t.n && d->t.rows[k].changed && d->t.rows[k].growth >= o->min_bytes)
        k++;
    d->t.nshown = o->top && k > o->top ? o->top : k;
    const struct snap_process *a = &m[0].s.proc, *b = &m[n - 1].s.proc;
    d->same_process = msnap_same_process(a, b);
    d->same_program = msnap_other_program(m, n) == 0;
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
    r->snaps = xcalloc(n, sizeof *r->snaps);
    if (!r->snaps || mt_init(&r->t, n))
        goto fail;
    bool torch_series = series_has_torch_view(m, n);
    for (size_t i = 0; i < n; i++) {
        const struct snapshot *s = &m[i].s;
        struct merge_snap *ms = &r->snaps[i];
        for (size_t k = 0; k < s->nallocs; k++) {
            ms->live_bytes = sat_add(ms->live_bytes, s->allocs[k].size);
            ms->live_count = sat_add(ms->live_count, 1);
            /* mappings of other processes' memory are reported on their own */
            if (sview_alloc_rule(&m[i].v, &s->allocs[k]) < 0 && !gl_kind_is_mapping(s->allocs[k].kind)) {
                ms->leaked_bytes = sat_add(ms->leaked_bytes, s->allocs[k].size);
                ms->leaked_count = sat_add(ms->leaked_count, 1);
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
        if (mt_fill(&r->t, &m[i], i, false, torch_series))
            goto fail;
    }
    scale_cells(&r->t, m, NULL);
    if (mt_finish(&r->t))
        goto fail;
    g_nsnaps = n;
    sort_array(r->t.rows, r->t.n, sizeof *r->t.rows, cmp_merge);
    size_t k = 0;
    while (k < r->t.n && r->t.rows[k].present < n && r->t.rows[k].total >= o->min_bytes)
        k++;
    r->t.nshown = o->top && k > o->top ? o->top : k;
    if (free_table_build(m, n, true, &r->frees) || torn_table_build(m, n, true, &r->torn) ||
        leak_sites_build(&r->t, o->min_bytes, &r->leaks))
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
    leak_sites_free(&r->leaks);
    memset(r, 0, sizeof *r);
}

size_t merge_aggregate(struct msnap *m, size_t n, struct merge_agg *out, size_t max, bool by_dev)
{
    size_t na = 0;
    for (size_t i = 0; i < n; i++) {
        const struct snapshot *s = &m[i].s;
        size_t nd = by_dev ? s->ndevices : 1;
        for (size_t k = 0; k < nd; k++) {
            int32_t dev = by_dev ? s->devices[k].device : -2;
            size_t a = 0;
            while (a < na && !(strcmp(out[a].host, s->proc.host.s) == 0 && out[a].device == dev))
                a++;
            if (a == na) {
                if (na == max)
                    continue;
                memset(&out[na], 0, sizeof out[na]);
                out[na].host = s->proc.host.s;
                out[na].device = dev;
                na++;
            }
            struct merge_agg *g = &out[a];
            uint64_t live = 0, peak = 0;
            if (by_dev) {
                live = s->devices[k].live_bytes;
                peak = s->devices[k].peak_bytes;
            } else {
                for (size_t q = 0; q < s->nallocs; q++)
                    live = sat_add(live, s->allocs[q].size);
                for (size_t q = 0; q < s->ndevices; q++)
                    peak = sat_add(peak, s->devices[q].peak_bytes);
            }
            g->live = sat_add(g->live, live);
            g->peak_sum = sat_add(g->peak_sum, peak);
            if (peak > g->peak_max)
                g->peak_max = peak;
            size_t len = strlen(g->ranks);
            const char *sep = g->snaps ? "," : "";
            if (len + 32 >= sizeof g->ranks)
                ; /* full: the count still says how many */
            else if (s->proc.flags & GL_SNAP_F_NO_RANK) /* its rank field is a default 0 */
                snprintf(g->ranks + len, sizeof g->ranks - len, "%sno rank (pid %u)", sep, s->proc.pid);
            else
                snprintf(g->ranks + len, sizeof g->ranks - len, "%s%u", sep, s->proc.rank);
            g->snaps++;
        }
    }
    return na;
}
