/* The address map's cells (addrmap.h): the allocations sorted by address,
 * the unit doubled from the driver's page until they fit in max_cells,
 * then each allocation's bytes spread over the units it covers. */
#include "analysis/addrmap.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/frag.h"
#include "model/snap_read.h"
#include "util/radix.h"
#include "util/xalloc.h"

static uint64_t end_of(const struct snap_alloc *a)
{
    return a->ptr + a->size < a->ptr ? UINT64_MAX : a->ptr + a->size;
}

/* Cells needed with units of `unit` bytes (stops counting past max). */
static uint64_t count_cells(const struct snapshot *s, const struct kv *sorted, size_t n, uint64_t unit,
                            size_t max, size_t small_gap)
{
    uint64_t cells = 0, last = 0;
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        const struct snap_alloc *a = &s->allocs[sorted[i].val];
        uint64_t lo = a->ptr / unit, hi = (end_of(a) - 1) / unit;
        if (any && hi <= last)
            continue;
        if (any && lo <= last)
            lo = last + 1;
        if (any && lo > last + 1) {
            uint64_t g = lo - last - 1;
            cells += g <= small_gap ? g : 1;
        }
        cells += hi - lo + 1;
        last = hi;
        any = true;
        if (cells > max)
            return cells;
    }
    return cells;
}

int addrmap_bin(const struct snapshot *s, int32_t device, size_t max_cells, size_t small_gap,
                struct addrmap *out)
{
    memset(out, 0, sizeof *out);
    struct kv *sorted = xmalloc((s->nallocs ? s->nallocs : 1) * sizeof *sorted);
    /* room for a cell's small gap and its allocation beyond the last kept one */
    struct addrmap_cell *cells = xcalloc(max_cells + 2 * small_gap + 4, sizeof *cells);
    if (!sorted || !cells)
        goto oom;
    size_t n = 0;
    for (size_t i = 0; i < s->nallocs; i++) {
        const struct snap_alloc *a = &s->allocs[i];
        if (a->device == device && a->size && (a->kind == GL_KIND_DEVICE || a->kind == GL_KIND_POOL))
            sorted[n++] = (struct kv){a->ptr, i};
    }
    if (radix_sort(sorted, n))
        goto oom;
    uint64_t unit = FRAG_PAGE;
    while (n && count_cells(s, sorted, n, unit, max_cells, small_gap) > max_cells && unit < (1ull << 62))
        unit *= 2;
    size_t nc = 0;
    bool any = false;
    uint64_t last = 0;
    for (size_t i = 0; i < n && nc <= max_cells; i++) {
        const struct snap_alloc *a = &s->allocs[sorted[i].val];
        uint64_t start = a->ptr, end = end_of(a);
        uint64_t lo = start / unit, hi = (end - 1) / unit, u = lo;
        if (any && lo <= last) {
            u = last; /* continues the current cell */
        } else if (any) {
            uint64_t g = lo - last - 1;
            if (g > small_gap)
                cells[nc++] = (struct addrmap_cell){last + 1, g, 0, 0};
            else
                for (uint64_t e = last + 1; e < lo; e++)
                    cells[nc++] = (struct addrmap_cell){e, 0, 0, 0};
        }
        for (; u <= hi && nc <= max_cells; u++) {
            if (!(any && u == last))
                cells[nc++] = (struct addrmap_cell){u, 0, 0, 0};
            struct addrmap_cell *c = &cells[nc - 1];
            uint64_t cs = u * unit, ce = cs + unit < cs ? UINT64_MAX : cs + unit;
            uint64_t x = start > cs ? start : cs, y = end < ce ? end : ce;
            if (y > x)
                c->bytes += y - x;
            c->count++;
        }
        if (!any || hi > last)
            last = hi;
        any = true;
    }
    free(sorted);
    out->unit = unit;
    out->cells = cells;
    out->ncells = nc > max_cells ? max_cells : nc;
    return 0;
oom:
    free(sorted);
    free(cells);
    return -1;
}

void addrmap_free(struct addrmap *m)
{
    free(m->cells);
    memset(m, 0, sizeof *m);
}
