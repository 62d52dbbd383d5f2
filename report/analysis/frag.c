/* Fragmentation.  Only device and pool allocations have device addresses
 * that share an address range (managed memory lives in its own range, array
 * and virtual "pointers" are handles), so the page and hole analyses use
 * those two kinds; the size classes use every kind but mappings of other
 * processes' memory, which are not this device's usage.
 *
 * Pages: live allocations do not overlap, so once sorted by address each
 * one touches pages at or after the last page of the one before: one pass
 * accumulates the live bytes of the current page and flushes it when the
 * next allocation starts on a later page.  A page whose live bytes are under
 * half of it is "mostly empty"; its empty bytes are charged in equal shares
 * to the allocations touching it, which are what keeps it allocated. */
#include "analysis/frag.h"

#include <stdlib.h>
#include <string.h>

#include "util/radix.h"
#include "util/sort.h"
#include "util/xalloc.h"

static int cmp_pin(const void *pa, const void *pb)
{
    const struct frag_pin *a = pa, *b = pb;
    if (a->empty_bytes != b->empty_bytes)
        return a->empty_bytes > b->empty_bytes ? -1 : 1;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return a->stack_id < b->stack_id ? -1 : a->stack_id > b->stack_id;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static long find_dev(struct frag *f, int32_t device, bool add)
{
    if (device < 0)
        return -1;
    for (size_t i = 0; i < f->ndev; i++)
        if (f->dev[i].device == device)
            return (long)i;
    if (!add || f->ndev >= 4096)
        return -1;
    memset(&f->dev[f->ndev], 0, sizeof f->dev[f->ndev]);
    f->dev[f->ndev].device = device;
    return (long)f->ndev++;
}

struct pager {
    struct frag_dev *fd;
    uint64_t page;    /* current page number */
    uint64_t live;    /* live bytes on it */
    size_t *members;  /* allocation indices (into the sorted array) on it */
    size_t nmem, capm;
    const struct kv *sorted;
    const struct snapshot *s;
    uint64_t *charge, *charge_count; /* by cstack */
    uint32_t *charge_stack;
    const struct snapview *v;
    size_t last_counted;
};

static int member(struct pager *p, size_t i)
{
    if (p->nmem == p->capm) {
        p->capm = p->capm ? 2 * p->capm : 16;
        size_t *m = xrealloc(p->members, p->capm * sizeof *m);
        if (!m)
            return -1;
        p->members = m;
    }
    p->members[p->nmem++] = i;
    return 0;
}

static void flush(struct pager *p)
{
    if (p->nmem == 0)
        return;
    p->fd->pages++;
    if (p->live * 2 < FRAG_PAGE) {
        uint64_t empty = FRAG_PAGE - p->live;
        p->fd->sparse_pages++;
        p->fd->sparse_empty_bytes += empty;
        uint64_t share = empty / p->nmem, rest = empty % p->nmem;
        for (size_t k = 0; k < p->nmem; k++) {
            size_t i = p->members[k];
            const struct snap_alloc *a = &p->s->allocs[p->sorted[i].val];
            uint32_t cs = sview_cs(p->v, a->stack_id);
            p->charge[cs] += share + (k == 0 ? rest : 0);
            if (p->last_counted != i + 1) { /* an allocation spans <= 2 such pages */
                p->charge_count[cs]++;
                p->last_counted = i + 1;
            }
            if (!p->charge_stack[cs] || (a->stack_id && a->stack_id < p->charge_stack[cs]))
                p->charge_stack[cs] = a->stack_id ? a->stack_id : UINT32_MAX;
        }
    }
    p->nmem = 0;
    p->live = 0;
}

/* Adds [start, end) of allocation i. */
static int add_range(struct pager *p, size_t i, uint64_t start, uint64_t end)
{
    uint64_t first = start / FRAG_PAGE, last = (end - 1) / FRAG_PAGE;
    if (p->nmem && first != p->page)
        flush(p);
    p->page = first;
    if (first == last) {
        p->live += end - start;
        return member(p, i);
    }
    p->live += (first + 1) * FRAG_PAGE - start;
    if (member(p, i))
        return -1;
    flush(p);
    p->fd->pages += last - first - 1; /* full pages in between */
    p->page = last;
    p->live = end - last * FRAG_PAGE;
    return member(p, i);
}

static int address_space(const struct snapview *v, struct frag_dev *fd,
                         const struct analyze_opts *o, struct kv *buf)
{
    const struct snapshot *s = v->s;
    size_t n = 0;
    for (size_t i = 0; i < s->nallocs; i++) {
        const struct snap_alloc *a = &s->allocs[i];
        if (a->device == fd->device && a->size &&
            (a->kind == GL_KIND_DEVICE || a->kind == GL_KIND_POOL))
            buf[n++] = (struct kv){a->ptr, i};
    }
    if (n == 0)
        return 0;
    if (radix_sort(buf, n))
        return -1;
    size_t ncs = v->db->ncs;
    struct pager p = {.fd = fd, .sorted = buf, .s = s, .v = v};
    p.charge = xcalloc(ncs, sizeof *p.charge);
    p.charge_count = xcalloc(ncs, sizeof *p.charge_count);
    p.charge_stack = xcalloc(ncs, sizeof *p.charge_stack);
    int rc = -1;
    if (!p.charge || !p.charge_count || !p.charge_stack)
        goto out;
    uint64_t prev_end = 0;
    fd->span_lo = buf[0].key;
    for (size_t i = 0; i < n; i++) {
        const struct snap_alloc *a = &s->allocs[buf[i].val];
        uint64_t start = a->ptr;
        uint64_t end = a->ptr + a->size < a->ptr ? UINT64_MAX : a->ptr + a->size;
        fd->addr_bytes += a->size;
        fd->addr_count++;
        if (i > 0 && start > prev_end) {
            uint64_t gap = start - prev_end;
            fd->holes++;
            fd->hole_bytes += gap;
            if (gap > fd->largest_hole)
                fd->largest_hole = gap;
        }
        if (start < prev_end) /* overlapping input: count each byte once */
            start = prev_end;
        if (end > prev_end)
            prev_end = end;
        if (end > start && add_range(&p, i, start, end))
            goto out;
    }
    flush(&p);
    fd->span_hi = prev_end;
    fd->headline = fd->hole_bytes ? 1.0 - (double)fd->largest_hole / (double)fd->hole_bytes : 0.0;
    for (size_t c = 0; c < ncs; c++)
        if (p.charge_count[c])
            fd->npins_total++;
    fd->pins = xcalloc(fd->npins_total ? fd->npins_total : 1, sizeof *fd->pins);
    if (!fd->pins)
        goto out;
    size_t k = 0;
    for (size_t c = 0; c < ncs; c++)
        if (p.charge_count[c])
            fd->pins[k++] = (struct frag_pin){(uint32_t)c,
                                              p.charge_stack[c] == UINT32_MAX ? 0 : p.charge_stack[c],
                                              p.charge[c], p.charge_count[c]};
    sort_array(fd->pins, k, sizeof *fd->pins, cmp_pin);
    fd->npins = o->top && k > o->top ? o->top : k;
    if (!o->top && k > 10)
        fd->npins = 10; /* a short list: the rest are in the totals */
    rc = 0;
out:
    free(p.members);
    free(p.charge);
    free(p.charge_count);
    free(p.charge_stack);
    return rc;
}

/* Which device each reservation belongs to.  cuMemAddressReserve names no
 * device (the interposer writes -1), so a reservation is counted on the
 * device of the lowest mapping inside it; one holding mappings of several
 * devices counts on that one only, and one with nothing mapped on none
 * (-1; struct frag's idle totals).  A reservation written with a device
 * keeps it.  Mappings are sorted by address and each finds its reservation
 * by binary search: O(n log n) whatever a hostile snapshot holds. */
struct va_range {
    uint64_t va, size;
    size_t idx; /* into s->vmms */
};

static int cmp_range(const void *a, const void *b)
{
    const struct va_range *x = a, *y = b;
    if (x->va != y->va)
        return x->va < y->va ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int reservation_owners(const struct snapshot *s, int32_t *owner)
{
    size_t nr = 0, nm = 0;
    for (size_t i = 0; i < s->nvmms; i++) {
        owner[i] = s->vmms[i].device;
        nr += s->vmms[i].type == GL_VMM_RESERVATION;
        nm += s->vmms[i].type == GL_VMM_MAPPING;
    }
    struct va_range *res = xmalloc((nr ? nr : 1) * sizeof *res);
    struct va_range *map = xmalloc((nm ? nm : 1) * sizeof *map);
    if (!res || !map) {
        free(res);
        free(map);
        return -1;
    }
    nr = nm = 0;
    for (size_t i = 0; i < s->nvmms; i++) {
        struct va_range r = {s->vmms[i].va, s->vmms[i].size, i};
        if (s->vmms[i].type == GL_VMM_RESERVATION)
            res[nr++] = r;
        else if (s->vmms[i].type == GL_VMM_MAPPING)
            map[nm++] = r;
    }
    sort_array(res, nr, sizeof *res, cmp_range);
    sort_array(map, nm, sizeof *map, cmp_range);
    for (size_t k = 0; k < nm; k++) {
        int32_t dev = s->vmms[map[k].idx].device;
        if (dev < 0)
            continue;
        /* the last reservation starting at or below the mapping */
        size_t lo = 0, hi = nr;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (res[mid].va <= map[k].va)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == 0)
            continue;
        const struct va_range *r = &res[lo - 1];
        if (map[k].va - r->va < r->size && owner[r->idx] < 0)
            owner[r->idx] = dev;
    }
    free(res);
    free(map);
    return 0;
}

static void virtual_memory(const struct snapshot *s, struct frag_dev *fd,
                           const uint64_t *handles, size_t nh, const int32_t *owner)
{
    for (size_t i = 0; i < s->nvmms; i++) {
        const struct snap_vmm *m = &s->vmms[i];
        if (owner[i] != fd->device)
            continue;
        if (m->type == GL_VMM_RESERVATION) {
            fd->nreservations++;
            fd->va_reserved += m->size;
        } else if (m->type == GL_VMM_MAPPING) {
            fd->nmappings++;
            fd->va_mapped += m->size;
        }
    }
    for (size_t i = 0; i < s->nallocs; i++) {
        const struct snap_alloc *a = &s->allocs[i];
        if (a->device != fd->device || a->kind != GL_KIND_VIRTUAL)
            continue;
        fd->nphysical++;
        fd->physical += a->size;
        if (!bsearch(&a->ptr, handles, nh, sizeof *handles, cmp_u64)) {
            fd->nunmapped++;
            fd->physical_unmapped += a->size;
        }
    }
}

static int cmp_fdev(const void *a, const void *b)
{
    int32_t x = ((const struct frag_dev *)a)->device, y = ((const struct frag_dev *)b)->device;
    return x < y ? -1 : x > y;
}

int frag_build(const struct snapview *v, const struct analyze_opts *o, struct frag *f)
{
    const struct snapshot *s = v->s;
    memset(f, 0, sizeof *f);
    f->dev = xcalloc(4096, sizeof *f->dev);
    struct kv *buf = xmalloc((s->nallocs ? s->nallocs : 1) * sizeof *buf);
    /* every mapped handle, to find physical memory that is not mapped */
    uint64_t *handles = xmalloc((s->nvmms ? s->nvmms : 1) * sizeof *handles);
    int32_t *owner = xmalloc((s->nvmms ? s->nvmms : 1) * sizeof *owner);
    int rc = -1;
    if (!f->dev || !buf || !handles || !owner || reservation_owners(s, owner))
        goto out;
    size_t nh = 0;
    for (size_t i = 0; i < s->nvmms; i++)
        if (s->vmms[i].type == GL_VMM_MAPPING)
            handles[nh++] = s->vmms[i].handle;
    sort_array(handles, nh, sizeof *handles, cmp_u64);
    for (size_t i = 0; i < s->ndevices; i++)
        find_dev(f, s->devices[i].device, true);
    for (size_t i = 0; i < s->nallocs; i++) {
        const struct snap_alloc *a = &s->allocs[i];
        if (!gl_kind_in_usage(a->kind)) /* another process's memory, a multicast object */
            continue;
        long d = find_dev(f, a->device, true);
        if (d < 0)
            continue;
        struct frag_dev *fd = &f->dev[d];
        fd->live_bytes += a->size;
        fd->live_count++;
        unsigned c = hist_size_class(a->size);
        fd->live_class_count[c]++;
        fd->live_class_bytes[c] += a->size;
    }
    for (size_t i = 0; i < s->npools; i++) {
        long d = find_dev(f, s->pools[i].device, true);
        if (d >= 0 && s->pools[i].handle == GL_POOL_GRAPH_MEM) {
            f->dev[d].have_graph_pool = true;
            f->dev[d].graph_reserved = s->pools[i].reserved;
            f->dev[d].graph_used = s->pools[i].used;
        } else if (d >= 0) {
            f->dev[d].npools++;
            f->dev[d].pool_reserved += s->pools[i].reserved;
            f->dev[d].pool_used += s->pools[i].used;
        }
    }
    for (size_t i = 0; i < s->nvmms; i++) {
        find_dev(f, owner[i], true);
        if (owner[i] < 0 && s->vmms[i].type == GL_VMM_RESERVATION) {
            f->idle_reservations++;
            f->idle_reserved += s->vmms[i].size;
        }
    }
    sort_array(f->dev, f->ndev, sizeof *f->dev, cmp_fdev);
    for (size_t d = 0; d < f->ndev; d++) {
        struct frag_dev *fd = &f->dev[d];
        for (size_t i = 0; i < s->ndevices; i++)
            if (s->devices[i].device == fd->device && s->devices[i].mem_total) {
                fd->have_driver = true;
                fd->mem_total = s->devices[i].mem_total;
                fd->mem_free = s->devices[i].mem_free;
                fd->driver_used = fd->mem_total > fd->mem_free ? fd->mem_total - fd->mem_free : 0;
            }
        if (address_space(v, fd, o, buf))
            goto out;
        virtual_memory(s, fd, handles, nh, owner);
    }
    rc = 0;
out:
    free(buf);
    free(handles);
    free(owner);
    return rc;
}

void frag_free(struct frag *f)
{
    if (f->dev)
        for (size_t i = 0; i < f->ndev; i++)
            free(f->dev[i].pins);
    free(f->dev);
    memset(f, 0, sizeof *f);
}
