/* Device address ranges and the first-fit allocator inside them.
 *
 * Each device owns one private anonymous mapping (MAP_NORESERVE, so it costs
 * nothing until touched), placed at 0x200000000000 + dev * 1 TiB when that
 * address is free: device pointers then look like GPU addresses and can never
 * be confused with host heap pointers.  The range spans twice the configured
 * memory, so fragmentation never causes a spurious out-of-memory; the budget
 * (d->used vs d->total) is what enforces the device's size, exactly as
 * cuMemGetInfo reports it.  All functions here run under fc_lock(). */
#include "fc_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define FC_HINT_BASE ((uintptr_t)0x200000000000ULL)
#define FC_SLOT ((uintptr_t)1 << 40)

/* Like the real driver: >= 2 MiB goes to 2 MiB granularity, else 512 B. */
size_t fc_round(size_t n)
{
    size_t g = n >= FC_BIG ? FC_BIG : FC_ALIGN;
    if (n > SIZE_MAX - g)
        return 0;
    return (n + g - 1) & ~(g - 1);
}

int fc_heap_setup(struct fc_dev *d)
{
    size_t va = ((d->total + FC_BIG - 1) & ~(FC_BIG - 1)) * 2;
    void *hint = (void *)(FC_HINT_BASE + (uintptr_t)d->ord * FC_SLOT);
    int fl = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
    /* A plain hint, not MAP_FIXED_NOREPLACE: the kernel falls back to any
     * free address by itself, and sanitizers that own that area (TSan's
     * shadow lives there) may drop the hint -- with NOREPLACE and a dropped
     * hint, root can even be handed address 0. */
    void *p = mmap(hint, va + FC_BIG, PROT_READ | PROT_WRITE, fl, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    uintptr_t base = (uintptr_t)p;
    base = (base + FC_BIG - 1) & ~(FC_BIG - 1); /* keep 2 MiB alignment */
    struct fc_seg *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    s->start = base;
    s->size = va;
    d->base = base;
    d->va_size = va;
    d->segs = s;
    return 0;
}

int fc_charge(struct fc_dev *d, size_t n)
{
    if (n > d->total - d->used)
        return -1;
    d->used += n;
    return 0;
}

void fc_uncharge(struct fc_dev *d, size_t n) { d->used -= n; }

/* First fit; the caller has charged the device (or maps another process's
 * memory, which is not this device's to charge). */
static struct fc_seg *take(struct fc_dev *d, size_t rsize)
{
    for (struct fc_seg *s = d->segs; s; s = s->next) {
        if (s->used || s->size < rsize)
            continue;
        if (s->size > rsize) { /* split: the tail stays free */
            struct fc_seg *t = calloc(1, sizeof *t);
            if (!t)
                break;
            t->start = s->start + rsize;
            t->size = s->size - rsize;
            t->prev = s;
            t->next = s->next;
            if (s->next)
                s->next->prev = t;
            s->next = t;
            s->size = rsize;
        }
        struct fc_seg *prev = s->prev, *next = s->next;
        uintptr_t start = s->start;
        memset(s, 0, sizeof *s);
        s->start = start;
        s->size = rsize;
        s->prev = prev;
        s->next = next;
        s->used = 1;
        s->id = fc_next_id();
        return s;
    }
    return NULL;
}

struct fc_seg *fc_heap_alloc(struct fc_dev *d, size_t rsize)
{
    if (rsize == 0 || fc_charge(d, rsize) != 0)
        return NULL;
    struct fc_seg *s = take(d, rsize);
    if (!s)
        fc_uncharge(d, rsize);
    else
        s->charged = 1;
    return s;
}

struct fc_seg *fc_heap_map(struct fc_dev *d, size_t rsize)
{
    struct fc_seg *s = rsize ? take(d, rsize) : NULL;
    if (s)
        s->kind = FC_K_IPC;
    return s;
}

/* A graph allocation's address is fixed when its node is created; its
 * physical memory comes and goes with launches and frees, charged to the
 * device's graph pool (fc_driver_graph_exec.c), not here. */
struct fc_seg *fc_heap_reserve(struct fc_dev *d, size_t rsize)
{
    struct fc_seg *s = rsize ? take(d, rsize) : NULL;
    if (s)
        s->kind = FC_K_GRAPH;
    return s;
}

static void merge_next(struct fc_seg *s)
{
    struct fc_seg *n = s->next;
    s->size += n->size;
    s->next = n->next;
    if (n->next)
        n->next->prev = s;
    free(n);
}

void fc_heap_free(struct fc_dev *d, struct fc_seg *s)
{
    if (s->ipc_slot)
        fc_ipc_forget(s);
    if (s->charged)
        fc_uncharge(d, s->size);
    s->charged = 0;
    /* Give the pages back so a test that churns gigabytes stays small -- only
     * whole pages inside the block: a neighbour may share its edge pages. */
    uintptr_t lo = (s->start + 4095) & ~(uintptr_t)4095, hi = (s->start + s->size) & ~(uintptr_t)4095;
    if (hi > lo && hi - lo >= ((size_t)64 << 10))
        madvise((void *)lo, hi - lo, MADV_DONTNEED);
    s->used = 0;
    s->kind = 0;
    s->ctx = NULL;
    s->pool = NULL;
    if (s->next && !s->next->used)
        merge_next(s);
    if (s->prev && !s->prev->used)
        merge_next(s->prev);
}

int fc_heap_in_range(uintptr_t p)
{
    for (int i = 0; i < fc_ndev; i++)
        if (p >= fc_devs[i].base && p - fc_devs[i].base < fc_devs[i].va_size)
            return 1;
    return 0;
}

struct fc_seg *fc_heap_find(uintptr_t p, int exact, struct fc_dev **dout)
{
    for (int i = 0; i < fc_ndev; i++) {
        struct fc_dev *d = &fc_devs[i];
        if (p < d->base || p - d->base >= d->va_size)
            continue;
        for (struct fc_seg *s = d->segs; s; s = s->next) {
            if (p < s->start)
                break;
            if (p - s->start >= s->size)
                continue;
            if (!s->used || (exact && s->start != p))
                return NULL;
            if (dout)
                *dout = d;
            return s;
        }
        return NULL;
    }
    return NULL;
}
