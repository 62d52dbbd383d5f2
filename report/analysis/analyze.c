/* Leak groups and peak composition.
 *
 * Grouping uses a hash table keyed by (kind, device, cstack, api, rule) so a
 * snapshot with a million live allocations is one linear pass plus a sort of
 * the (much fewer) groups.  The api is part of the key only so that a group
 * never mixes APIs; with a captured stack it is implied by the call site
 * anyway.  Byte sums saturate instead of wrapping (hostile sizes). */
#include "analysis/analyze.h"
#include "util/hash.h"
#include "util/sat.h"
#include "util/slots.h"
#include "util/sort.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* 1 / p for an allocation of size bytes (snap_sample_weight). */
static double weight_of(const struct snapshot *s, double size)
{
    return snap_sample_weight(s->sampling.mode ? s->sampling.sample_bytes : 0, size);
}

double sample_weight(const struct snapshot *s, uint64_t size)
{
    return weight_of(s, (double)size);
}

struct sample_est sample_scale_sums(const struct snapshot *s, uint64_t count, uint64_t bytes)
{
    double w = count ? weight_of(s, (double)bytes / (double)count) : 1;
    return (struct sample_est){w * (double)count, w * (double)bytes};
}

struct sample_est sample_scale(const struct snapshot *s, uint32_t stack_id, uint64_t count, uint64_t bytes)
{
    if (stack_unsampled(s, stack_id))
        return (struct sample_est){0, 0};
    return sample_scale_sums(s, count, bytes);
}

/* What one allocation adds to its group's estimate (analyze.h). */
static void add_estimate(const struct snapshot *s, struct leak_group *g, const struct snap_alloc *a)
{
    if (s->sampling.mode != 0 && a->stack_id == 0)
        return; /* not sampled: the sampled ones' weights cover it */
    double w = sample_weight(s, a->size);
    g->est_count += w;
    g->est_bytes += w * (double)a->size;
}

struct gtable {
    struct leak_group *groups;
    size_t n, cap;
    uint32_t *slots; /* group index + 1; 0 = empty */
    size_t nslots;
};

static uint64_t key_hash(uint16_t kind, int32_t dev, uint32_t cs, uint16_t api, int32_t rule)
{
    uint64_t h = ((uint64_t)cs << 32) ^ ((uint64_t)(uint32_t)dev << 16) ^
                 ((uint64_t)kind << 8) ^ api ^ ((uint64_t)(uint32_t)rule << 40);
    return hash_mix64(h);
}

static uint64_t group_hash(const void *ctx, uint32_t entry)
{
    const struct leak_group *g = &((const struct gtable *)ctx)->groups[entry - 1];
    return key_hash(g->kind, g->device, g->cs, g->api, g->rule);
}

static int gt_add(struct gtable *t, const struct snapshot *s, const struct snap_alloc *a, uint32_t cs,
                  int32_t rule)
{
    if ((t->n + 1) * 2 > t->nslots)
        slots_grow(&t->slots, &t->nslots, group_hash, t);
    size_t h = key_hash(a->kind, a->device, cs, a->api, rule) & (t->nslots - 1);
    while (t->slots[h]) {
        struct leak_group *g = &t->groups[t->slots[h] - 1];
        if (g->kind == a->kind && g->device == a->device && g->cs == cs &&
            g->api == a->api && g->rule == rule) {
            g->bytes = sat_add(g->bytes, a->size);
            g->count++;
            add_estimate(s, g, a);
            if (a->stack_id < g->stack_id)
                g->stack_id = a->stack_id;
            if (a->seq < g->first_seq) {
                g->first_seq = a->seq;
                g->first_time_ns = a->time_ns;
            }
            if (a->seq > g->last_seq) {
                g->last_seq = a->seq;
                g->last_time_ns = a->time_ns;
            }
            return 0;
        }
        h = (h + 1) & (t->nslots - 1);
    }
    if (t->n == t->cap)
        t->groups = xgrow(t->groups, &t->cap, 64, sizeof *t->groups);
    t->groups[t->n] = (struct leak_group){
        .kind = a->kind, .api = a->api, .device = a->device, .cs = cs, .rule = rule,
        .stack_id = a->stack_id, .bytes = a->size, .count = 1,
        .first_seq = a->seq, .last_seq = a->seq,
        .first_time_ns = a->time_ns, .last_time_ns = a->time_ns,
    };
    add_estimate(s, &t->groups[t->n], a);
    t->slots[h] = (uint32_t)(++t->n);
    return 0;
}

#define CMP(x, y) do { if ((x) != (y)) return (x) < (y) ? -1 : 1; } while (0)

/* list (leaks, cached, suppressed, mapped, modules) first so each list is contiguous;
 * then bytes desc, count desc, stack id asc; then the rest of the key so the
 * order is total and the output deterministic */
enum { L_LEAKS, L_CACHED, L_SUPPRESSED, L_MAPPED, L_MODULES };
static int list_of(const struct leak_group *g, const struct suppressions *sup)
{
    if (g->rule < 0)
        return gl_kind_is_mapping(g->kind) ? L_MAPPED : g->kind == GL_KIND_MODULE ? L_MODULES : L_LEAKS;
    return sup->rules[g->rule].builtin ? L_CACHED : L_SUPPRESSED;
}

static int cmp_group(const void *pa, const void *pb, void *ctx)
{
    const struct leak_group *a = pa, *b = pb;
    CMP(list_of(a, ctx), list_of(b, ctx));
    CMP(b->est_bytes, a->est_bytes); /* bytes, unless the stacks were sampled */
    CMP(b->bytes, a->bytes);
    CMP(b->count, a->count);
    CMP(a->stack_id, b->stack_id);
    CMP(a->kind, b->kind);
    CMP(a->device, b->device);
    CMP(a->api, b->api);
    CMP(a->cs, b->cs);
    CMP(a->rule, b->rule);
    return 0;
}

static int cmp_kind_total(const void *pa, const void *pb)
{
    const struct kind_total *a = pa, *b = pb;
    CMP(a->kind, b->kind);
    CMP(a->device, b->device);
    return 0;
}

static int dev_order(int32_t d) { return d < 0 ? 0x7fffffff : d; }

static int cmp_dev(const void *pa, const void *pb)
{
    const struct device_report *a = pa, *b = pb;
    CMP(dev_order(a->dev->device), dev_order(b->dev->device));
    return 0;
}

static int cmp_peak_key(const void *pa, const void *pb)
{
    const struct peak_item *a = pa, *b = pb;
    CMP(a->device, b->device);
    CMP(a->cs, b->cs);
    return 0;
}

static int cmp_peak(const void *pa, const void *pb)
{
    const struct peak_item *a = pa, *b = pb;
    CMP(a->device, b->device);
    CMP(b->est_bytes, a->est_bytes); /* bytes themselves unless sampled */
    CMP(b->bytes, a->bytes);
    CMP(b->count, a->count);
    CMP(a->stack_id, b->stack_id);
    CMP(a->cs, b->cs);
    return 0;
}

/* How many of the n sorted items are shown: drop those under min_bytes
 * (estimated, when sampled) and the allocations not sampled (sorted last:
 * their estimate is 0), keep at most top. */
static size_t shown_groups(const struct snapshot *s, const struct leak_group *g, size_t n,
                           const struct analyze_opts *o)
{
    size_t k = 0;
    while (k < n && g[k].est_bytes >= (double)o->min_bytes && !group_unsampled(s, &g[k])) /* sorted desc */
        k++;
    return o->top && k > o->top ? o->top : k;
}

static void make_list(const struct snapshot *s, struct group_list *l, struct leak_group *g, size_t n,
                      const struct analyze_opts *o)
{
    l->g = g;
    l->total = n;
    l->n = shown_groups(s, g, n, o);
    for (size_t i = 0; i < n; i++) {
        l->bytes = sat_add(l->bytes, g[i].bytes);
        l->count += g[i].count;
        if (group_unsampled(s, &g[i])) {
            l->unsampled_bytes = sat_add(l->unsampled_bytes, g[i].bytes);
            l->unsampled_count += g[i].count;
            l->unsampled_groups++;
        } else if (i >= l->n) {
            l->hidden_bytes = sat_add(l->hidden_bytes, g[i].bytes);
            l->hidden_count += g[i].count;
        }
    }
}

static int leaks(const struct snapview *v, const struct suppressions *sup,
                 const struct analyze_opts *o, struct analysis *out)
{
    static const struct suppressions none;
    if (!sup)
        sup = &none;
    const struct snapshot *s = v->s;
    struct gtable t = {0};
    for (size_t i = 0; i < s->nallocs; i++) {
        const struct snap_alloc *a = &s->allocs[i];
        out->total_bytes = sat_add(out->total_bytes, a->size);
        out->total_count++;
        if (gt_add(&t, s, a, sview_cs(v, a->stack_id), sview_alloc_rule(v, a))) {
            free(t.groups);
            free(t.slots);
            return -1;
        }
    }
    free(t.slots);
    sort_array_r(t.groups, t.n, sizeof *t.groups, cmp_group, (void *)sup);
    out->all = t.groups;
    size_t n[5] = {0}, at = 0;
    for (int l = L_LEAKS; l <= L_MODULES; l++)
        for (; at < t.n && list_of(&t.groups[at], sup) == l; at++)
            n[l]++;
    /* no live allocation: t.groups is NULL, and NULL + 0 is undefined */
    static struct leak_group no_groups[1];
    struct leak_group *base = t.groups ? t.groups : no_groups;
    make_list(s, &out->leaks, base, n[0], o);
    make_list(s, &out->cached, base + n[0], n[1], o);
    make_list(s, &out->suppressed, base + n[0] + n[1], n[2], o);
    make_list(s, &out->mapped, base + n[0] + n[1] + n[2], n[3], o);
    make_list(s, &out->modules, base + n[0] + n[1] + n[2] + n[3], n[4], o);
    out->nrules = sup->n;
    out->rules = xcalloc(sup->n ? sup->n : 1, sizeof *out->rules);
    if (!out->rules)
        return -1;
    for (size_t i = n[0]; i < n[0] + n[1] + n[2]; i++) {
        struct rule_total *rt = &out->rules[t.groups[i].rule];
        rt->bytes = sat_add(rt->bytes, t.groups[i].bytes);
        rt->count += t.groups[i].count;
    }

    /* totals per (kind, device): few distinct keys, derive from groups */
    out->by_kind = xcalloc(t.n ? t.n : 1, sizeof *out->by_kind);
    if (!out->by_kind)
        return -1;
    for (size_t i = 0; i < t.n; i++) {
        const struct leak_group *g = &t.groups[i];
        size_t j = 0;
        while (j < out->nby_kind && !(out->by_kind[j].kind == g->kind &&
                                      out->by_kind[j].device == g->device))
            j++;
        if (j == out->nby_kind) {
            out->by_kind[j] = (struct kind_total){.kind = g->kind, .device = g->device};
            out->nby_kind++;
        }
        out->by_kind[j].bytes = sat_add(out->by_kind[j].bytes, g->bytes);
        out->by_kind[j].count += g->count;
    }
    sort_array(out->by_kind, out->nby_kind, sizeof *out->by_kind, cmp_kind_total);
    return 0;
}

static int peaks(const struct snapview *v, const struct analyze_opts *o,
                 struct analysis *out)
{
    const struct snapshot *s = v->s;
    out->devs = xcalloc(s->ndevices ? s->ndevices : 1, sizeof *out->devs);
    struct peak_item *pk = xmalloc((s->npeaks ? s->npeaks : 1) * sizeof *pk);
    out->peak_buf = pk;
    if (!out->devs || !pk)
        return -1;
    /* regroup by (device, cstack): stacks equal once folded add up */
    for (size_t i = 0; i < s->npeaks; i++) {
        const struct snap_peak *e = &s->peaks[i];
        struct sample_est est = sample_scale(s, e->stack_id, e->count, e->bytes);
        pk[i] = (struct peak_item){e->device, sview_cs(v, e->stack_id), e->stack_id, e->bytes, e->count,
                                   est.bytes, est.count};
    }
    size_t np = 0;
    if (s->npeaks) {
        sort_array(pk, s->npeaks, sizeof *pk, cmp_peak_key);
        for (size_t i = 0; i < s->npeaks; i++) {
            if (np && pk[np - 1].device == pk[i].device && pk[np - 1].cs == pk[i].cs) {
                struct peak_item *m = &pk[np - 1];
                m->bytes = sat_add(m->bytes, pk[i].bytes);
                m->count = sat_add(m->count, pk[i].count);
                m->est_bytes += pk[i].est_bytes;
                m->est_count += pk[i].est_count;
                if (pk[i].stack_id < m->stack_id)
                    m->stack_id = pk[i].stack_id;
            } else {
                pk[np++] = pk[i];
            }
        }
        sort_array(pk, np, sizeof *pk, cmp_peak);
    }
    out->ndevs = s->ndevices;
    for (size_t i = 0; i < s->ndevices; i++)
        out->devs[i].dev = &s->devices[i];
    sort_array(out->devs, out->ndevs, sizeof *out->devs, cmp_dev);
    for (size_t i = 0; i < np;) {
        size_t j = i;
        while (j < np && pk[j].device == pk[i].device)
            j++;
        struct device_report *d = NULL;
        for (size_t k = 0; k < out->ndevs; k++)
            if (out->devs[k].dev->device == pk[i].device)
                d = &out->devs[k];
        if (d) {
            d->comp = pk + i;
            d->ncomp_total = j - i;
            /* by estimate, as the leak groups; the allocations not sampled
             * (estimate 0, sorted last) are never an item shown */
            size_t k = 0;
            while (k < j - i && pk[i + k].est_bytes >= (double)o->min_bytes &&
                   !stack_unsampled(s, pk[i + k].stack_id))
                k++;
            d->ncomp = o->top && k > o->top ? o->top : k;
            for (size_t m = i + d->ncomp; m < j; m++) {
                if (stack_unsampled(s, pk[m].stack_id)) {
                    d->comp_unsampled_bytes = sat_add(d->comp_unsampled_bytes, pk[m].bytes);
                    d->comp_unsampled_count = sat_add(d->comp_unsampled_count, pk[m].count);
                    d->ncomp_unsampled++;
                    continue;
                }
                d->comp_bytes_hidden = sat_add(d->comp_bytes_hidden, pk[m].bytes);
                d->comp_count_hidden += pk[m].count;
            }
        } else {
            out->orphan_peaks += j - i;
        }
        i = j;
    }
    return 0;
}

int analyze(const struct snapview *v, const struct suppressions *sup,
            const struct analyze_opts *o, struct analysis *out)
{
    memset(out, 0, sizeof *out);
    out->sampled = v->s->sampling.mode != 0;
    for (size_t i = 0; i < v->s->ndevices; i++)
        out->allocs_made = sat_add(out->allocs_made, v->s->devices[i].alloc_count);
    for (size_t i = 0; i < v->s->nteardowns; i++)
        out->torn_count = sat_add(out->torn_count, v->s->teardowns[i].count);
    if (leaks(v, sup, o, out) || peaks(v, o, out)) {
        analysis_free(out);
        return -1;
    }
    return 0;
}

void analysis_free(struct analysis *a)
{
    free(a->all);
    free(a->rules);
    free(a->by_kind);
    free(a->devs);
    free(a->peak_buf);
    memset(a, 0, sizeof *a);
}
