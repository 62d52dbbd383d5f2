/* PyTorch's view against itself and gpuleak's allocations (torch_check.h). */
#include "model/torch_check.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fmt.h"
#include "util/sat.h"
#include "util/sort.h"
#include "util/xalloc.h"

static void problem(struct torch_check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(struct torch_check *c, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    c->problems = xrealloc(c->problems, (c->nproblems + 1) * sizeof *c->problems);
    c->problems[c->nproblems++] = xstrdup(buf);
}

/* A problem seen at several places: the first, and how many more. */
struct tally {
    size_t count;
    char first[256];
};

static void tally_note(struct tally *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tally_note(struct tally *t, const char *fmt, ...)
{
    if (t->count++ > 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->first, sizeof t->first, fmt, ap);
    va_end(ap);
}

static void tally_report(struct torch_check *c, const struct tally *t)
{
    if (t->count == 1)
        problem(c, "%s", t->first);
    else if (t->count > 1)
        problem(c, "%s (and %zu more)", t->first, t->count - 1);
}

static int cmp_block(const void *pa, const void *pb, void *ctx)
{
    const struct snap_torch_block *b = ctx;
    const struct snap_torch_block *x = &b[*(const size_t *)pa], *y = &b[*(const size_t *)pb];
    if (x->segment != y->segment)
        return x->segment < y->segment ? -1 : 1;
    return x->address < y->address ? -1 : x->address > y->address;
}

static int cmp_alloc(const void *pa, const void *pb, void *ctx)
{
    const struct snap_alloc *a = ctx;
    uint64_t x = a[*(const size_t *)pa].ptr, y = a[*(const size_t *)pb].ptr;
    return x < y ? -1 : x > y;
}

/* One segment as its blocks describe it. */
struct seg {
    uint64_t address, extent; /* the blocks' sizes, summed */
    int32_t device;           /* its first block's */
};

/* The segments, sorted by address, from the blocks sorted by (segment,
 * address); block placement checked on the way. */
static struct seg *segments_of(const struct snapshot *s, const size_t *order, size_t *nseg,
                               struct tally *outside, struct tally *overlap)
{
    const struct snap_torch_block *b = s->torch_blocks;
    struct seg *segs = xcalloc(s->ntorch_blocks + 1, sizeof *segs);
    size_t n = 0;
    for (size_t i = 0, end; i < s->ntorch_blocks; i = end) {
        struct seg *g = &segs[n++];
        *g = (struct seg){b[order[i]].segment, 0, b[order[i]].device};
        for (end = i; end < s->ntorch_blocks && b[order[end]].segment == g->address; end++)
            g->extent = sat_add(g->extent, b[order[end]].size);
        uint64_t limit = sat_add(g->address, g->extent);
        for (size_t k = i; k < end; k++) {
            const struct snap_torch_block *x = &b[order[k]];
            if (x->address < g->address || sat_add(x->address, x->size) > limit) {
                char size[32];
                fmt_commas(size, sizeof size, x->size);
                tally_note(outside, "block 0x%" PRIx64 " (%s bytes) lies outside its segment 0x%" PRIx64,
                           x->address, size, g->address);
            }
            else if (k > i && sat_add(b[order[k - 1]].address, b[order[k - 1]].size) > x->address)
                tally_note(overlap, "blocks 0x%" PRIx64 " and 0x%" PRIx64 " overlap", b[order[k - 1]].address,
                           x->address);
        }
    }
    *nseg = n;
    return segs;
}

/* Each segment against the device allocations gpuleak saw. */
static void against_gpuleak(struct torch_check *c, const struct snapshot *s, const struct seg *segs, size_t nseg)
{
    size_t *dev = xcalloc(s->nallocs + 1, sizeof *dev), ndev = 0;
    for (size_t a = 0; a < s->nallocs; a++)
        if (s->allocs[a].kind == GL_KIND_DEVICE)
            dev[ndev++] = a;
    sort_array_r(dev, ndev, sizeof *dev, cmp_alloc, s->allocs);
    struct tally bigger = {0}, device = {0}, straddle = {0};
    char b1[32], b2[32];
    for (size_t k = 0; k < nseg; k++) {
        const struct seg *g = &segs[k];
        uint64_t end = sat_add(g->address, g->extent);
        /* the last allocation starting before the segment ends */
        size_t lo = 0, hi = ndev;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (s->allocs[dev[mid]].ptr < end)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == 0)
            continue;
        const struct snap_alloc *a = &s->allocs[dev[lo - 1]];
        if (a->ptr == g->address) {
            if (g->extent > a->size) {
                fmt_commas(b1, sizeof b1, g->extent);
                fmt_commas(b2, sizeof b2, a->size);
                tally_note(&bigger,
                           "segment 0x%" PRIx64 " holds %s bytes of blocks, more than gpuleak's cudaMalloc there (%s bytes)",
                           g->address, b1, b2);
            }
            if (g->device != a->device)
                tally_note(&device, "segment 0x%" PRIx64 " is on device %" PRId32
                                    ", gpuleak's cudaMalloc there on device %" PRId32,
                           g->address, g->device, a->device);
        } else if (sat_add(a->ptr, a->size) > g->address) {
            fmt_commas(b1, sizeof b1, a->size);
            tally_note(&straddle, "segment 0x%" PRIx64 " overlaps gpuleak's cudaMalloc at 0x%" PRIx64 " (%s bytes)",
                       g->address, a->ptr, b1);
        }
    }
    tally_report(c, &bigger);
    tally_report(c, &device);
    tally_report(c, &straddle);
    free(dev);
}

/* The stated totals against each other and against the blocks. */
static void totals(struct torch_check *c, const struct snapshot *s, size_t nseg)
{
    uint64_t live = 0, all = 0;
    for (size_t i = 0; i < s->ntorch_blocks; i++) {
        all = sat_add(all, s->torch_blocks[i].size);
        if (s->torch_blocks[i].state == GL_TORCH_BLOCK_ALLOCATED)
            live = sat_add(live, s->torch_blocks[i].size);
    }
    const struct snap_torch *t = &s->torch;
    char b1[32], b2[32];
    if (t->allocated_bytes > t->reserved_bytes) {
        fmt_commas(b1, sizeof b1, t->allocated_bytes);
        fmt_commas(b2, sizeof b2, t->reserved_bytes);
        problem(c, "allocated %s bytes is more than reserved %s bytes", b1, b2);
    }
    if (live != t->allocated_bytes) {
        fmt_commas(b1, sizeof b1, live);
        fmt_commas(b2, sizeof b2, t->allocated_bytes);
        problem(c, "its live blocks sum to %s bytes, not the allocated %s", b1, b2);
    }
    if (all != t->reserved_bytes) {
        fmt_commas(b1, sizeof b1, all);
        fmt_commas(b2, sizeof b2, t->reserved_bytes);
        problem(c, "its blocks sum to %s bytes, not the reserved %s", b1, b2);
    }
    if (nseg != t->segments)
        problem(c, "its blocks name %zu segments, not the stated %" PRIu32, nseg, t->segments);
}

void torch_check_build(const struct snapshot *s, struct torch_check *out)
{
    memset(out, 0, sizeof *out);
    if (s->torch.status != GL_TORCH_ANSWERED)
        return;
    size_t *order = xcalloc(s->ntorch_blocks + 1, sizeof *order);
    for (size_t i = 0; i < s->ntorch_blocks; i++)
        order[i] = i;
    sort_array_r(order, s->ntorch_blocks, sizeof *order, cmp_block, s->torch_blocks);
    struct tally outside = {0}, block_overlap = {0}, seg_overlap = {0};
    size_t nseg;
    struct seg *segs = segments_of(s, order, &nseg, &outside, &block_overlap);
    free(order);
    for (size_t k = 0; k + 1 < nseg; k++)
        if (sat_add(segs[k].address, segs[k].extent) > segs[k + 1].address)
            tally_note(&seg_overlap, "segments 0x%" PRIx64 " and 0x%" PRIx64 " overlap", segs[k].address,
                       segs[k + 1].address);
    totals(out, s, nseg);
    tally_report(out, &outside);
    tally_report(out, &block_overlap);
    tally_report(out, &seg_overlap);
    against_gpuleak(out, s, segs, nseg);
    free(segs);
}

void torch_check_free(struct torch_check *c)
{
    for (size_t i = 0; i < c->nproblems; i++)
        free(c->problems[i]);
    free(c->problems);
    memset(c, 0, sizeof *c);
}
