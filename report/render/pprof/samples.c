#include "render/pprof/samples.h"

#include <stdlib.h>

#include "analysis/analyze.h"
#include "analysis/calls.h"
#include "util/sat.h"
#include "util/sort.h"
#include "util/xalloc.h"

/* Samples of one site (stack, kind, API) next to each other. */
static int by_site(const void *pa, const void *pb)
{
    const struct pprof_sample *a = pa, *b = pb;
    if (a->cs != b->cs)
        return a->cs < b->cs ? -1 : 1;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if (a->api != b->api)
        return a->api < b->api ? -1 : 1;
    return (a->device > b->device) - (a->device < b->device);
}

static int same_key(const struct pprof_sample *a, const struct pprof_sample *b)
{
    return a->cs == b->cs && a->kind == b->kind && a->api == b->api && a->device == b->device;
}

enum { EST_ALLOC_OBJECTS, EST_ALLOC_SPACE, EST_INUSE_OBJECTS, EST_INUSE_SPACE };

/* One sample per live allocation (sampled ones only, in a sampled
 * snapshot), then equal keys summed. */
static void add_live(const struct snapview *v, struct pprof_samples *ps)
{
    const struct snapshot *s = v->s;
    for (size_t i = 0; i < s->nallocs; i++) {
        const struct snap_alloc *a = &s->allocs[i];
        if (stack_unsampled(s, a->stack_id))
            continue; /* in the sampled ones' estimates */
        double w = sample_weight(s, a->size);
        ps->s[ps->n++] = (struct pprof_sample){.cs = sview_cs(v, a->stack_id), .device = a->device,
                                               .kind = a->kind, .api = a->api, .inuse_objects = 1,
                                               .inuse_space = a->size,
                                               .est = {[EST_INUSE_OBJECTS] = w,
                                                       [EST_INUSE_SPACE] = w * (double)a->size}};
    }
    sort_array(ps->s, ps->n, sizeof *ps->s, by_site);
    size_t n = 0;
    for (size_t i = 0; i < ps->n; i++) {
        struct pprof_sample *last = n ? &ps->s[n - 1] : NULL;
        if (last && same_key(last, &ps->s[i])) {
            last->inuse_objects++;
            last->inuse_space = sat_add(last->inuse_space, ps->s[i].inuse_space);
            last->est[EST_INUSE_OBJECTS] += ps->s[i].est[EST_INUSE_OBJECTS];
            last->est[EST_INUSE_SPACE] += ps->s[i].est[EST_INUSE_SPACE];
        } else {
            ps->s[n++] = ps->s[i];
        }
    }
    ps->n = n;
}

/* The live samples (sorted, the first nlive) of a site: where the first is
 * and how many. */
static size_t site_range(const struct pprof_samples *ps, size_t nlive, const struct call_site *c,
                         size_t *count)
{
    struct pprof_sample key = {.cs = c->cs, .kind = c->kind, .api = c->api, .device = INT32_MIN};
    size_t lo = 0, hi = nlive;
    while (lo < hi) { /* the first sample not below key */
        size_t mid = lo + (hi - lo) / 2;
        if (by_site(&ps->s[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo;
    while (end < nlive && ps->s[end].cs == c->cs && ps->s[end].kind == c->kind && ps->s[end].api == c->api)
        end++;
    *count = end - lo;
    return lo;
}

static void add_calls(const struct call_sites *cs, struct pprof_samples *ps)
{
    size_t nlive = ps->n;
    for (size_t i = 0; i < cs->n; i++) {
        const struct call_site *c = &cs->site[i];
        if (cs->sampled && c->est_allocs == 0)
            continue; /* the calls not sampled: in the estimates */
        size_t count, at = site_range(ps, nlive, c, &count);
        struct pprof_sample *to = &ps->s[at];
        if (count != 1) {
            to = &ps->s[ps->n++];
            *to = (struct pprof_sample){.cs = c->cs, .device = PPROF_NO_DEVICE, .kind = c->kind,
                                        .api = c->api};
        }
        to->alloc_objects = sat_add(to->alloc_objects, c->allocs);
        to->alloc_space = sat_add(to->alloc_space, c->bytes);
        to->est[EST_ALLOC_OBJECTS] += c->est_allocs;
        to->est[EST_ALLOC_SPACE] += c->est_bytes;
    }
}

/* A sampled snapshot: every value becomes its estimate, as Go's heap
 * profiles' (runtime/pprof scaleHeapSample). */
static void use_estimates(struct pprof_samples *ps)
{
    for (size_t i = 0; i < ps->n; i++) {
        struct pprof_sample *x = &ps->s[i];
        x->alloc_objects = est_round(x->est[EST_ALLOC_OBJECTS]);
        x->alloc_space = est_round(x->est[EST_ALLOC_SPACE]);
        x->inuse_objects = est_round(x->est[EST_INUSE_OBJECTS]);
        x->inuse_space = est_round(x->est[EST_INUSE_SPACE]);
    }
}

int pprof_samples_build(const struct snapview *v, struct pprof_samples *out)
{
    struct call_sites cs;
    *out = (struct pprof_samples){0};
    if (calls_build(v, &cs) != 0)
        return -1;
    out->s = xcalloc(v->s->nallocs + cs.n + 1, sizeof *out->s);
    add_live(v, out);
    if (v->s->ncalls > 0) {
        add_calls(&cs, out);
    } else {
        for (size_t i = 0; i < out->n; i++) {
            out->s[i].alloc_objects = out->s[i].inuse_objects;
            out->s[i].alloc_space = out->s[i].inuse_space;
            out->s[i].est[EST_ALLOC_OBJECTS] = out->s[i].est[EST_INUSE_OBJECTS];
            out->s[i].est[EST_ALLOC_SPACE] = out->s[i].est[EST_INUSE_SPACE];
        }
    }
    if (v->s->sampling.mode)
        use_estimates(out);
    calls_free(&cs);
    return 0;
}

void pprof_samples_free(struct pprof_samples *ps)
{
    free(ps->s);
    *ps = (struct pprof_samples){0};
}
