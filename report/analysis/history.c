/* History replay.  The ring holds only the most recent events, so the level
 * at its start is not recorded; it is derived backwards from what is known
 * exactly, the live allocations at the snapshot: base = live_at_end - (sum of
 * allocs - sum of frees in the window), per device and per kind.  A history
 * that frees more than that allows (inconsistent input) gets the smallest
 * base that keeps every point non-negative, and is flagged.  Mappings of
 * other processes' memory and multicast objects (not gl_kind_in_usage) have
 * their per-kind level but are no part of the device's: not its usage, as in
 * the DEVICES counters. */
#include "analysis/history.h"
#include "util/sort.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define MAX_DEVS 256
/* kinds newer than this reader share the last slot */
#define KIDX(k) ((k) < GL_KIND_COUNT ? (unsigned)(k) : (unsigned)GL_KIND_COUNT)

unsigned hist_size_class(uint64_t size)
{
    return size ? 64u - (unsigned)__builtin_clzll(size) : 0;
}

uint64_t hist_size_class_low(unsigned k)
{
    return k == 0 ? 0 : 1ull << (k - 1);
}

static int dev_order(int32_t d) { return d < 0 ? 0x7fffffff : d; }

static int cmp_dev(const void *a, const void *b)
{
    int x = dev_order(((const struct hist_dev *)a)->device);
    int y = dev_order(((const struct hist_dev *)b)->device);
    return x < y ? -1 : x > y;
}

long hist_dev_index(const struct history *h, int32_t device)
{
    static size_t last; /* devices are few: the last hit is remembered */
    if (last < h->ndev && h->dev[last].device == device)
        return (long)last;
    for (size_t i = 0; i < h->ndev; i++)
        if (h->dev[i].device == device)
            return (long)(last = i);
    return -1;
}

/* Device slot, made when add and missing. */
static long slot(struct history *h, int32_t device, bool add)
{
    long found = hist_dev_index(h, device);
    if (found >= 0 || !add)
        return found;
    if (h->ndev == MAX_DEVS) {
        h->dropped_devices++;
        return -1;
    }
    memset(&h->dev[h->ndev], 0, sizeof h->dev[h->ndev]);
    h->dev[h->ndev].device = device;
    h->dev[h->ndev].peak_mark = -1;
    return (long)h->ndev++;
}

/* An allocation of the size, kind and device an OOM asked for, after it:
 * that OOM's "then" (the first such; one allocation settles one OOM). */
#define OOM_PENDING 64
static void settle_oom(struct history *h, size_t *pending, size_t *npending, const struct snap_event *e)
{
    for (size_t i = 0; i < *npending; i++) {
        struct hist_mark *m = &h->marks[pending[i]];
        if (m->size != e->size || m->kind != e->kind || m->device != e->device)
            continue;
        m->then_seq = e->seq;
        m->then_time_ns = e->time_ns;
        m->then_stack_id = e->stack_id;
        memmove(pending + i, pending + i + 1, (--*npending - i) * sizeof *pending);
        return;
    }
}

static int push_point(struct hist_dev *d, uint64_t t, uint64_t v)
{
    if (d->n == d->cap) {
        size_t nc = d->cap ? 2 * d->cap : 256;
        uint64_t *a = xrealloc(d->time_ns, nc * sizeof *a);
        if (!a)
            return -1;
        d->time_ns = a;
        uint64_t *b = xrealloc(d->bytes, nc * sizeof *b);
        if (!b)
            return -1;
        d->bytes = b;
        d->cap = nc;
    }
    d->time_ns[d->n] = t;
    d->bytes[d->n++] = v;
    return 0;
}

typedef __int128 i128;

static uint64_t clamp_u64(i128 v)
{
    return v < 0 ? 0 : v > (i128)UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

long history_mark_before(const struct history *h, uint64_t seq, bool *known)
{
    *known = h->present && h->first_seq <= seq;
    long best = -1;
    for (size_t i = 0; i < h->nmarks; i++)
        if (h->marks[i].type == GL_EV_ANNOTATION && h->marks[i].seq <= seq)
            best = (long)i;
    if (best >= 0)
        *known = true;
    return best;
}

/* The replay's running sums, per device slot: by kind (what is live at the
 * end, the window's net change and its lowest point, the current level) and
 * for the device's own usage (net, lowest, current). */
struct levels {
    i128 (*live)[GL_KIND_SLOTS], (*net)[GL_KIND_SLOTS], (*lo)[GL_KIND_SLOTS], (*cur)[GL_KIND_SLOTS];
    i128 *dnet, *dlo, *dcur;
};

static int levels_alloc(struct levels *l)
{
    l->live = xcalloc(MAX_DEVS, sizeof *l->live);
    l->net = xcalloc(MAX_DEVS, sizeof *l->net);
    l->lo = xcalloc(MAX_DEVS, sizeof *l->lo);
    l->cur = xcalloc(MAX_DEVS, sizeof *l->cur);
    l->dnet = xcalloc(MAX_DEVS, sizeof *l->dnet);
    l->dlo = xcalloc(MAX_DEVS, sizeof *l->dlo);
    l->dcur = xcalloc(MAX_DEVS, sizeof *l->dcur);
    return l->live && l->net && l->lo && l->cur && l->dnet && l->dlo && l->dcur ? 0 : -1;
}

static void levels_free(struct levels *l)
{
    free(l->live);
    free(l->net);
    free(l->lo);
    free(l->cur);
    free(l->dnet);
    free(l->dlo);
    free(l->dcur);
}

static bool is_mark(uint16_t type)
{
    return type == GL_EV_OOM || type == GL_EV_SNAPSHOT || type == GL_EV_ANNOTATION;
}

/* What is live at the end, per device and kind; the window's net change and
 * its lowest running sum.  Returns the number of marks in the window. */
static size_t sum_window(const struct snapshot *s, struct history *h, struct levels *l)
{
    for (size_t i = 0; i < s->nallocs; i++) {
        long d = slot(h, s->allocs[i].device, true);
        if (d >= 0)
            l->live[d][KIDX(s->allocs[i].kind)] += s->allocs[i].size;
    }
    size_t nmarks = 0;
    for (size_t i = 0; i < s->nevents; i++) {
        const struct snap_event *e = &s->events[i];
        if (e->type == GL_EV_ALLOC || e->type == GL_EV_FREE) {
            long d = slot(h, e->device, true);
            if (d < 0)
                continue;
            i128 delta = e->type == GL_EV_ALLOC ? (i128)e->size : -(i128)e->size;
            unsigned k = KIDX(e->kind);
            l->net[d][k] += delta;
            if (l->net[d][k] < l->lo[d][k])
                l->lo[d][k] = l->net[d][k];
            if (!gl_kind_in_usage(e->kind))
                continue;
            l->dnet[d] += delta;
            if (l->dnet[d] < l->dlo[d])
                l->dlo[d] = l->dnet[d];
        } else if (is_mark(e->type)) {
            nmarks++;
        }
    }
    return nmarks;
}

/* The base per device and kind (the device base is their sum), where the
 * replay starts, and each device's maxima from it. */
static void set_bases(struct history *h, struct levels *l)
{
    for (size_t d = 0; d < h->ndev; d++) {
        i128 dbase = 0;
        for (unsigned k = 0; k < GL_KIND_SLOTS; k++) {
            i128 b = l->live[d][k] - l->net[d][k];
            if (b + l->lo[d][k] < 0) {
                b = -l->lo[d][k];
                h->inconsistent = true;
            }
            l->cur[d][k] = b;
            if (gl_kind_in_usage(k))
                dbase += b;
        }
        if (dbase + l->dlo[d] < 0) /* cannot happen once each kind is >= 0 */
            dbase = -l->dlo[d];
        l->dcur[d] = dbase;
        struct hist_dev *hd = &h->dev[d];
        hd->base = clamp_u64(dbase);
        hd->max_bytes = hd->base;
        hd->max_time_ns = h->t0;
        hd->max_seq = h->first_seq;
        for (unsigned k = 0; k < GL_KIND_SLOTS; k++) {
            hd->kind_max[k] = clamp_u64(l->cur[d][k]);
            hd->kind_max_time_ns[k] = h->t0;
            hd->has_kind[k] = l->cur[d][k] > 0 || l->live[d][k] > 0;
        }
    }
}

/* An OOM, snapshot or annotation event as a mark; an OOM waits in pending
 * for a later allocation of its size. */
static void add_mark(const struct snapshot *s, struct history *h, const struct levels *l,
                     const struct snap_event *e, size_t *pending, size_t *npending)
{
    struct hist_mark *m = &h->marks[h->nmarks++];
    m->seq = e->seq;
    m->time_ns = e->time_ns;
    m->type = e->type;
    m->device = e->device;
    m->label_id = (uint32_t)e->ptr;
    m->label = e->type == GL_EV_ANNOTATION && e->ptr <= UINT32_MAX
                   ? snap_find_label(s, (uint32_t)e->ptr) : NULL;
    if (e->type == GL_EV_SNAPSHOT)
        m->index = e->size; /* interpose/control/snapshot_stages.c: the mark's size */
    if (e->type != GL_EV_OOM)
        return;
    m->size = e->size;
    m->mem_free = e->mem_free;
    m->mem_total = e->mem_total;
    m->stack_id = e->stack_id;
    m->kind = e->kind;
    m->api = e->api;
    long d = slot(h, e->device, false); /* none: nothing was live there */
    m->live_bytes = d >= 0 ? clamp_u64(l->dcur[d]) : 0;
    if (*npending == OOM_PENDING) /* the oldest gives up waiting */
        memmove(pending, pending + 1, --*npending * sizeof *pending);
    pending[(*npending)++] = h->nmarks - 1;
}

/* One alloc or free: the device's levels, maxima, points and requests. */
static int apply_change(struct history *h, struct levels *l, const struct snap_event *e)
{
    long d = slot(h, e->device, false);
    if (d < 0)
        return 0;
    struct hist_dev *hd = &h->dev[d];
    unsigned k = KIDX(e->kind);
    i128 delta = e->type == GL_EV_ALLOC ? (i128)e->size : -(i128)e->size;
    l->cur[d][k] += delta;
    hd->has_kind[k] = true;
    uint64_t kv = clamp_u64(l->cur[d][k]);
    if (kv > hd->kind_max[k]) {
        hd->kind_max[k] = kv;
        hd->kind_max_time_ns[k] = e->time_ns;
    }
    if (!gl_kind_in_usage(e->kind)) { /* the device's level does not move */
        h->nalloc += e->type == GL_EV_ALLOC;
        h->nfree += e->type == GL_EV_FREE;
        return 0;
    }
    l->dcur[d] += delta;
    uint64_t v = clamp_u64(l->dcur[d]);
    if (push_point(hd, e->time_ns, v))
        return -1;
    if (v > hd->max_bytes) {
        hd->max_bytes = v;
        hd->max_time_ns = e->time_ns;
        hd->max_seq = e->seq;
    }
    if (e->type == GL_EV_ALLOC) {
        h->nalloc++;
        unsigned c = hist_size_class(e->size);
        hd->req_count[c]++;
        hd->req_bytes[c] += e->size;
        hd->nreq++;
    } else {
        h->nfree++;
    }
    return 0;
}

/* The replay: marks, and the levels after every alloc and free. */
static int replay(const struct snapshot *s, struct history *h, struct levels *l)
{
    size_t pending[OOM_PENDING], npending = 0;
    for (size_t i = 0; i < s->nevents; i++) {
        const struct snap_event *e = &s->events[i];
        if (e->type != GL_EV_ALLOC && e->type != GL_EV_FREE) {
            if (is_mark(e->type))
                add_mark(s, h, l, e, pending, &npending);
            continue;
        }
        if (e->type == GL_EV_ALLOC && npending)
            settle_oom(h, pending, &npending, e);
        if (apply_change(h, l, e))
            return -1;
    }
    return 0;
}

/* Each device's peak in the history (the alloc event with its DEVICES
 * peak_seq), the annotation in force then, and the allocations before it. */
static void find_peaks(const struct snapshot *s, struct history *h)
{
    for (size_t d = 0; d < h->ndev; d++) {
        struct hist_dev *hd = &h->dev[d];
        const struct snap_device *sd = NULL;
        for (size_t i = 0; i < s->ndevices; i++)
            if (s->devices[i].device == hd->device)
                sd = &s->devices[i];
        if (!sd || !sd->peak_seq)
            continue;
        hd->peak_mark = history_mark_before(h, sd->peak_seq, &hd->peak_mark_known);
        for (size_t i = 0; i < s->nevents; i++) {
            const struct snap_event *e = &s->events[i];
            if (e->type == GL_EV_ALLOC && e->seq == sd->peak_seq && e->device == hd->device) {
                hd->peak_covered = true;
                hd->peak_event = i;
                break;
            }
        }
        if (!hd->peak_covered)
            continue;
        size_t got = 0;
        for (size_t i = hd->peak_event + 1; i-- > 0 && got < HIST_BEFORE;) {
            const struct snap_event *e = &s->events[i];
            if (e->type == GL_EV_ALLOC && e->device == hd->device && gl_kind_in_usage(e->kind))
                hd->before[HIST_BEFORE - 1 - got++] = i;
        }
        memmove(hd->before, hd->before + (HIST_BEFORE - got), got * sizeof *hd->before);
        hd->nbefore = got;
    }
}

int history_build(const struct snapshot *s, struct history *h)
{
    memset(h, 0, sizeof *h);
    h->dev = xcalloc(MAX_DEVS, sizeof *h->dev);
    if (!h->dev)
        return -1;
    for (size_t i = 0; i < s->ndevices; i++)
        slot(h, s->devices[i].device, true);
    h->present = s->nevents > 0;
    if (!h->present) {
        sort_array(h->dev, h->ndev, sizeof *h->dev, cmp_dev);
        return 0;
    }
    h->first_seq = s->events[0].seq;
    h->last_seq = s->events[s->nevents - 1].seq;
    h->t0 = s->events[0].time_ns;
    h->t1 = s->proc.snapshot_mono_ns;
    if (s->events[s->nevents - 1].time_ns > h->t1)
        h->t1 = s->events[s->nevents - 1].time_ns;

    struct levels l;
    int rc = -1;
    if (levels_alloc(&l) == 0) {
        size_t nmarks = sum_window(s, h, &l);
        h->marks = xcalloc(nmarks ? nmarks : 1, sizeof *h->marks);
        if (h->marks) {
            set_bases(h, &l);
            rc = replay(s, h, &l);
        }
    }
    levels_free(&l);
    if (rc)
        return rc;
    sort_array(h->dev, h->ndev, sizeof *h->dev, cmp_dev);
    find_peaks(s, h);
    return 0;
}

void history_free(struct history *h)
{
    if (h->dev)
        for (size_t i = 0; i < h->ndev; i++) {
            free(h->dev[i].time_ns);
            free(h->dev[i].bytes);
        }
    free(h->dev);
    free(h->marks);
    memset(h, 0, sizeof *h);
}
