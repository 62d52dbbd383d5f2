/* Leak groups and peak composition.
 *
 * Grouping uses a hash table keyed by (kind, device, stack id, api) so a
 * snapshot with a million live allocations is one linear pass plus a sort of
 * the (much fewer) groups.  The api is part of the key only so that a group
 * never mixes APIs; with a captured stack it is implied by the call site
 * anyway.  Byte sums saturate instead of wrapping (hostile sizes). */
#include "analyze.h"

#include <stdlib.h>
#include <string.h>

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a + b < a ? UINT64_MAX : a + b;
}

struct gtable {
    struct leak_group *groups;
    size_t n, cap;
    uint32_t *slots; /* group index + 1; 0 = empty */
    size_t nslots;
};

static uint64_t key_hash(uint16_t kind, int32_t dev, uint32_t stack, uint16_t api)
{
    uint64_t h = ((uint64_t)stack << 32) ^ ((uint64_t)(uint32_t)dev << 16) ^
                 ((uint64_t)kind << 8) ^ api;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

static int same_key(const struct leak_group *g, const struct snap_alloc *a)
{
    return g->kind == a->kind && g->device == a->device &&
           g->stack_id == a->stack_id && g->api == a->api;
}

static int gt_rehash(struct gtable *t)
{
    size_t n = t->nslots ? t->nslots * 2 : 1024;
    uint32_t *ns = calloc(n, sizeof *ns);
    if (!ns)
        return -1;
    for (size_t i = 0; i < t->n; i++) {
        const struct leak_group *g = &t->groups[i];
        size_t h = key_hash(g->kind, g->device, g->stack_id, g->api) & (n - 1);
        while (ns[h])
            h = (h + 1) & (n - 1);
        ns[h] = (uint32_t)(i + 1);
    }
    free(t->slots);
    t->slots = ns;
    t->nslots = n;
    return 0;
}

static int gt_add(struct gtable *t, const struct snap_alloc *a)
{
    if ((t->n + 1) * 2 > t->nslots && gt_rehash(t))
        return -1;
    size_t h = key_hash(a->kind, a->device, a->stack_id, a->api) & (t->nslots - 1);
    while (t->slots[h]) {
        struct leak_group *g = &t->groups[t->slots[h] - 1];
        if (same_key(g, a)) {
            g->bytes = sat_add(g->bytes, a->size);
            g->count++;
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
    if (t->n == t->cap) {
        size_t nc = t->cap ? 2 * t->cap : 64;
        struct leak_group *ng = realloc(t->groups, nc * sizeof *ng);
        if (!ng)
            return -1;
        t->groups = ng;
        t->cap = nc;
    }
    t->groups[t->n] = (struct leak_group){
        .kind = a->kind, .api = a->api, .device = a->device,
        .stack_id = a->stack_id, .bytes = a->size, .count = 1,
        .first_seq = a->seq, .last_seq = a->seq,
        .first_time_ns = a->time_ns, .last_time_ns = a->time_ns,
    };
    t->slots[h] = (uint32_t)(++t->n);
    return 0;
}

#define CMP(x, y) do { if ((x) != (y)) return (x) < (y) ? -1 : 1; } while (0)

/* bytes desc, count desc, stack id asc; then the rest of the key so the
 * order is total and the output deterministic */
static int cmp_group(const void *pa, const void *pb)
{
    const struct leak_group *a = pa, *b = pb;
    CMP(b->bytes, a->bytes);
    CMP(b->count, a->count);
    CMP(a->stack_id, b->stack_id);
    CMP(a->kind, b->kind);
    CMP(a->device, b->device);
    CMP(a->api, b->api);
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

static int cmp_peak(const void *pa, const void *pb)
{
    const struct snap_peak *a = pa, *b = pb;
    CMP(a->device, b->device);
    CMP(b->bytes, a->bytes);
    CMP(b->count, a->count);
    CMP(a->stack_id, b->stack_id);
    return 0;
}

/* How many of the n sorted items are shown: drop those under min_bytes,
 * keep at most top. */
static size_t shown(size_t n, const uint64_t *(*bytes_at)(const void *, size_t),
                    const void *arr, const struct analyze_opts *o)
{
    size_t k = 0;
    while (k < n && *bytes_at(arr, k) >= o->min_bytes) /* sorted by bytes desc */
        k++;
    if (o->top && k > o->top)
        k = o->top;
    return k;
}

static const uint64_t *group_bytes(const void *arr, size_t i)
{
    return &((const struct leak_group *)arr)[i].bytes;
}

static const uint64_t *peak_bytes(const void *arr, size_t i)
{
    return &((const struct snap_peak *)arr)[i].bytes;
}

static int leaks(const struct snapshot *s, const struct analyze_opts *o,
                 struct analysis *out)
{
    struct gtable t = {0};
    for (size_t i = 0; i < s->nallocs; i++) {
        out->total_bytes = sat_add(out->total_bytes, s->allocs[i].size);
        out->total_count++;
        if (gt_add(&t, &s->allocs[i])) {
            free(t.groups);
            free(t.slots);
            return -1;
        }
    }
    free(t.slots);
    if (t.n > 1) /* qsort(NULL, 0) is undefined */
        qsort(t.groups, t.n, sizeof *t.groups, cmp_group);
    out->groups = t.groups;
    out->ngroups_total = t.n;
    out->ngroups = shown(t.n, group_bytes, t.groups, o);
    for (size_t i = out->ngroups; i < t.n; i++) {
        out->hidden_bytes = sat_add(out->hidden_bytes, t.groups[i].bytes);
        out->hidden_count += t.groups[i].count;
    }

    /* totals per (kind, device): few distinct keys, derive from groups */
    out->by_kind = calloc(t.n ? t.n : 1, sizeof *out->by_kind);
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
    qsort(out->by_kind, out->nby_kind, sizeof *out->by_kind, cmp_kind_total);
    return 0;
}

static int peaks(const struct snapshot *s, const struct analyze_opts *o,
                 struct analysis *out)
{
    out->devs = calloc(s->ndevices ? s->ndevices : 1, sizeof *out->devs);
    struct snap_peak *pk = malloc((s->npeaks ? s->npeaks : 1) * sizeof *pk);
    out->peak_buf = pk;
    if (!out->devs || !pk)
        return -1;
    if (s->npeaks) {
        memcpy(pk, s->peaks, s->npeaks * sizeof *pk);
        qsort(pk, s->npeaks, sizeof *pk, cmp_peak);
    }
    out->ndevs = s->ndevices;
    for (size_t i = 0; i < s->ndevices; i++)
        out->devs[i].dev = &s->devices[i];
    qsort(out->devs, out->ndevs, sizeof *out->devs, cmp_dev);
    for (size_t i = 0; i < s->npeaks;) {
        size_t j = i;
        while (j < s->npeaks && pk[j].device == pk[i].device)
            j++;
        struct device_report *d = NULL;
        for (size_t k = 0; k < out->ndevs; k++)
            if (out->devs[k].dev->device == pk[i].device)
                d = &out->devs[k];
        if (d) {
            d->comp = pk + i;
            d->ncomp_total = j - i;
            d->ncomp = shown(j - i, peak_bytes, pk + i, o);
            for (size_t k = i + d->ncomp; k < j; k++) {
                d->comp_bytes_hidden = sat_add(d->comp_bytes_hidden, pk[k].bytes);
                d->comp_count_hidden += pk[k].count;
            }
        } else {
            out->orphan_peaks += j - i;
        }
        i = j;
    }
    return 0;
}

int analyze(const struct snapshot *s, const struct analyze_opts *o,
            struct analysis *out)
{
    memset(out, 0, sizeof *out);
    if (leaks(s, o, out) || peaks(s, o, out)) {
        analysis_free(out);
        return -1;
    }
    return 0;
}

void analysis_free(struct analysis *a)
{
    free(a->groups);
    free(a->by_kind);
    free(a->devs);
    free(a->peak_buf);
    memset(a, 0, sizeof *a);
}
