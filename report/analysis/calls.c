#include "analysis/calls.h"

#include <inttypes.h>
#include <stdlib.h>

#include "analysis/analyze.h"
#include "snapshot_format.h"
#include "util/sat.h"
#include "util/sort.h"
#include "util/xalloc.h"

static int by_key(const void *a, const void *b)
{
    const struct call_site *x = a, *y = b;
    if (x->cs != y->cs)
        return x->cs < y->cs ? -1 : 1;
    if (x->api != y->api)
        return x->api < y->api ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return x->stack_id < y->stack_id ? -1 : x->stack_id > y->stack_id;
}

/* Most calls first: estimated, when sampled (the calls not sampled, with
 * estimate 0, last). */
static int by_calls(const void *a, const void *b)
{
    const struct call_site *x = a, *y = b;
    if (x->est_allocs != y->est_allocs)
        return x->est_allocs > y->est_allocs ? -1 : 1;
    if (x->allocs != y->allocs)
        return x->allocs > y->allocs ? -1 : 1;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return x->stack_id < y->stack_id ? -1 : x->stack_id > y->stack_id;
}

static void totals(struct call_sites *c)
{
    c->allocs = c->frees = c->bytes = 0;
    for (size_t i = 0; i < c->n; i++) {
        c->allocs = sat_add(c->allocs, c->site[i].allocs);
        c->frees = sat_add(c->frees, c->site[i].frees);
        c->bytes = sat_add(c->bytes, c->site[i].bytes);
    }
}

/* A site's estimates from its counts: its frees weighted as its calls. */
static void scale_site(const struct snapshot *s, struct call_site *c)
{
    struct sample_est e = sample_scale(s, c->stack_id, c->allocs, c->bytes);
    c->est_allocs = e.count;
    c->est_bytes = e.bytes;
    c->est_frees = c->allocs ? e.count / (double)c->allocs * (double)c->frees : 0;
}

int calls_build(const struct snapview *v, struct call_sites *out)
{
    const struct snapshot *s = v->s;
    *out = (struct call_sites){0};
    if (s->ncalls == 0)
        return 0;
    struct call_site *site = xmalloc(s->ncalls * sizeof *site);
    if (site == NULL)
        return -1;
    for (size_t i = 0; i < s->ncalls; i++) {
        const struct snap_calls *c = &s->calls[i];
        site[i] = (struct call_site){.cs = sview_cs(v, c->stack_id), .stack_id = c->stack_id, .api = c->api,
                                     .kind = c->kind, .allocs = c->allocs, .frees = c->frees, .bytes = c->bytes};
        scale_site(s, &site[i]);
    }
    /* Stacks that fold to the same shown stack are one site. */
    sort_array(site, s->ncalls, sizeof *site, by_key);
    size_t n = 0;
    for (size_t i = 0; i < s->ncalls; i++) {
        if (n > 0 && site[n - 1].cs == site[i].cs && site[n - 1].api == site[i].api &&
            site[n - 1].kind == site[i].kind) {
            site[n - 1].allocs = sat_add(site[n - 1].allocs, site[i].allocs);
            site[n - 1].frees = sat_add(site[n - 1].frees, site[i].frees);
            site[n - 1].bytes = sat_add(site[n - 1].bytes, site[i].bytes);
            site[n - 1].est_allocs += site[i].est_allocs;
            site[n - 1].est_frees += site[i].est_frees;
            site[n - 1].est_bytes += site[i].est_bytes;
        } else {
            site[n++] = site[i];
        }
    }
    sort_array(site, n, sizeof *site, by_calls);
    out->site = site;
    out->n = n;
    out->sampled = s->sampling.mode != 0;
    totals(out);
    return 0;
}

/* Sites of one snapshot are unique by (cs, api, kind) after calls_build. */
static int by_site(const void *a, const void *b)
{
    const struct call_site *x = a, *y = b;
    if (x->cs != y->cs)
        return x->cs < y->cs ? -1 : 1;
    if (x->api != y->api)
        return x->api < y->api ? -1 : 1;
    return x->kind < y->kind ? -1 : x->kind > y->kind;
}

int calls_between(const struct snapview *first, const struct snapview *last, struct call_sites *out)
{
    struct call_sites a, b;
    *out = (struct call_sites){0};
    if (calls_build(first, &a) != 0)
        return -1;
    if (calls_build(last, &b) != 0) {
        calls_free(&a);
        return -1;
    }
    /* The first snapshot's sites by key, for a binary search per site of
     * the last (tens of thousands of stacks in a long job). */
    sort_array(a.site, a.n, sizeof *a.site, by_site);
    size_t n = 0;
    for (size_t i = 0; i < b.n; i++) {
        struct call_site s = b.site[i];
        const struct call_site *o = a.n ? bsearch(&s, a.site, a.n, sizeof *a.site, by_site) : NULL;
        if (o != NULL) {
            s.allocs = s.allocs > o->allocs ? s.allocs - o->allocs : 0;
            s.frees = s.frees > o->frees ? s.frees - o->frees : 0;
            s.bytes = s.bytes > o->bytes ? s.bytes - o->bytes : 0;
            scale_site(last->s, &s); /* one process: one R */
        }
        if (s.allocs > 0)
            b.site[n++] = s;
    }
    calls_free(&a);
    sort_array(b.site, n, sizeof *b.site, by_calls);
    b.n = n;
    totals(&b);
    *out = b;
    return 0;
}

/* A site of one snapshot, for merging. */
struct tagged {
    struct call_site s;
    size_t snap;
};

static int by_site_snap(const void *a, const void *b)
{
    const struct tagged *x = a, *y = b;
    int c = by_site(&x->s, &y->s);
    if (c)
        return c;
    return x->snap < y->snap ? -1 : x->snap > y->snap;
}

int calls_merge(struct msnap *m, size_t n, struct call_sites *out)
{
    *out = (struct call_sites){.nsnaps = n};
    struct tagged *all = NULL;
    size_t na = 0;
    for (size_t i = 0; i < n; i++) {
        struct call_sites c;
        if (calls_build(&m[i].v, &c) != 0)
            goto fail;
        out->sampled |= c.sampled;
        struct tagged *grown = c.n ? xrealloc(all, (na + c.n) * sizeof *all) : all;
        if (grown == NULL) {
            calls_free(&c);
            goto fail;
        }
        all = grown;
        for (size_t k = 0; k < c.n; k++)
            all[na++] = (struct tagged){c.site[k], i};
        calls_free(&c);
    }
    sort_array(all, na, sizeof *all, by_site_snap);
    size_t nsites = 0;
    for (size_t i = 0; i < na; i++)
        nsites += i == 0 || by_site(&all[i - 1].s, &all[i].s) != 0;
    if (nsites == 0) {
        free(all);
        return 0;
    }
    out->site = xcalloc(nsites, sizeof *out->site);
    out->cells = xcalloc(na, sizeof *out->cells);
    out->scratch = xcalloc(n, sizeof *out->scratch);
    if (out->site == NULL || out->cells == NULL || out->scratch == NULL)
        goto fail;
    struct call_site *s = NULL;
    for (size_t i = 0; i < na; i++) {
        const struct call_site *x = &all[i].s;
        if (i == 0 || by_site(&all[i - 1].s, x) != 0) {
            s = &out->site[out->n];
            *s = *x;
            s->allocs = s->frees = s->bytes = 0;
            s->est_allocs = s->est_frees = s->est_bytes = 0;
            s->cells = &out->cells[i];
            out->n++;
        }
        /* calls_build made each site unique within its snapshot: one cell
         * per entry, in snapshot order */
        s->allocs = sat_add(s->allocs, x->allocs);
        s->frees = sat_add(s->frees, x->frees);
        s->bytes = sat_add(s->bytes, x->bytes);
        s->est_allocs += x->est_allocs;
        s->est_frees += x->est_frees;
        s->est_bytes += x->est_bytes;
        out->cells[i] = (struct snapcell){.snap = (uint32_t)all[i].snap, .a = x->allocs};
        s->present++;
    }
    free(all);
    sort_array(out->site, out->n, sizeof *out->site, by_calls);
    totals(out);
    return 0;
fail:
    free(all);
    calls_free(out);
    return -1;
}

void calls_free(struct call_sites *c)
{
    free(c->site);
    free(c->cells);
    free(c->scratch);
    *c = (struct call_sites){0};
}

