/* The page's "address_map" member: each device's address space binned
 * into at most HM_CELLS cells. */
#include "render/html/addrmap.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analyze.h"
#include "analysis/bad_free_block.h"
#include "analysis/bad_frees.h"
#include "analysis/calls.h"
#include "analysis/frag.h"
#include "analysis/history.h"
#include "analysis/oom.h"
#include "analysis/teardown.h"
#include "model/snap_read.h"
#include "model/stackdb.h"
#include "model/symbolize.h"
#include "render/report.h"
#include "util/radix.h"
#include "util/sat.h"
#include "util/sort.h"
#include "util/xalloc.h"

struct amap {
    const struct snapshot *s;
    const struct kv *sorted; /* by address; val = alloc index */
    size_t n;
};

static uint64_t a_end(const struct snap_alloc *a)
{
    return a->ptr + a->size < a->ptr ? UINT64_MAX : a->ptr + a->size;
}

/* Cells needed with units of `unit` bytes. */
static uint64_t count_cells(const struct amap *m, uint64_t unit)
{
    uint64_t cells = 0, last = 0;
    bool any = false;
    for (size_t i = 0; i < m->n; i++) {
        const struct snap_alloc *a = &m->s->allocs[m->sorted[i].val];
        uint64_t lo = a->ptr / unit, hi = (a_end(a) - 1) / unit;
        if (any && hi <= last)
            continue;
        if (any && lo <= last)
            lo = last + 1;
        if (any && lo > last + 1) {
            uint64_t g = lo - last - 1;
            cells += g <= HM_SMALL_GAP ? g : 1;
        }
        cells += hi - lo + 1;
        last = hi;
        any = true;
        if (cells > HM_CELLS)
            return cells;
    }
    return cells;
}

struct cell {
    uint64_t unit;  /* first unit */
    uint64_t gap;   /* 0: one unit; else a folded run of this many empty units */
    uint64_t bytes, count;
};

void put_addrmap(struct hw *w, const struct report_ctx *r)
{
    const struct snapshot *s = r->s;
    json_key(&w->j, "addrmap");
    json_arr(&w->j);
    struct kv *buf = xmalloc((s->nallocs ? s->nallocs : 1) * sizeof *buf);
    struct cell *cells = xcalloc(HM_CELLS + 2 * HM_SMALL_GAP + 4, sizeof *cells);
    if (!buf || !cells) {
        w->oom = true;
        goto out;
    }
    for (size_t d = 0; d < r->fr->ndev; d++) {
        const struct frag_dev *fd = &r->fr->dev[d];
        size_t n = 0;
        for (size_t i = 0; i < s->nallocs; i++) {
            const struct snap_alloc *a = &s->allocs[i];
            if (a->device == fd->device && a->size &&
                (a->kind == GL_KIND_DEVICE || a->kind == GL_KIND_POOL))
                buf[n++] = (struct kv){a->ptr, i};
        }
        if (radix_sort(buf, n)) {
            w->oom = true;
            break;
        }
        struct amap m = {s, buf, n};
        uint64_t unit = FRAG_PAGE;
        while (n && count_cells(&m, unit) > HM_CELLS && unit < (1ull << 62))
            unit *= 2;
        /* fill the cells */
        size_t nc = 0;
        bool any = false;
        uint64_t last = 0;
        for (size_t i = 0; i < n && nc <= HM_CELLS; i++) {
            const struct snap_alloc *a = &s->allocs[buf[i].val];
            uint64_t start = a->ptr, end = a_end(a);
            uint64_t lo = start / unit, hi = (end - 1) / unit, u = lo;
            if (any && lo <= last) {
                u = last; /* continues the current cell */
            } else if (any) {
                uint64_t g = lo - last - 1;
                if (g > HM_SMALL_GAP)
                    cells[nc++] = (struct cell){last + 1, g, 0, 0};
                else
                    for (uint64_t e = last + 1; e < lo; e++)
                        cells[nc++] = (struct cell){e, 0, 0, 0};
            }
            for (; u <= hi && nc <= HM_CELLS; u++) {
                if (!(any && u == last))
                    cells[nc++] = (struct cell){u, 0, 0, 0};
                struct cell *c = &cells[nc - 1];
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
        if (nc > HM_CELLS)
            nc = HM_CELLS;
        json_obj(&w->j);
        kv_i(w, "device", fd->device);
        kv_u(w, "unit", unit);
        json_key(&w->j, "base");
        put_hex(w, n ? (uint64_t)(cells[0].unit * unit) : 0);
        json_key(&w->j, "span_start");
        put_hex(w, fd->span_lo);
        json_key(&w->j, "span_end");
        put_hex(w, fd->span_hi);
        kv_u(w, "address_bytes", fd->addr_bytes);
        kv_u(w, "address_count", fd->addr_count);
        kv_u(w, "pages", fd->pages);
        kv_u(w, "sparse_pages", fd->sparse_pages);
        kv_u(w, "holes", fd->holes);
        kv_u(w, "hole_bytes", fd->hole_bytes);
        kv_u(w, "largest_hole", fd->largest_hole);
        kv_d(w, "fragmentation", fd->headline);
        kv_u(w, "live_bytes", fd->live_bytes);
        kv_b(w, "have_driver", fd->have_driver);
        kv_u(w, "driver_used", fd->driver_used);
        /* cells: unit offset from the first cell, folded gap length, bytes, allocations */
        static const char *const cols[] = {"u", "g", "b", "n"};
        for (int c = 0; c < 4; c++) {
            json_key(&w->j, cols[c]);
            json_arr(&w->j);
            for (size_t i = 0; i < nc; i++) {
                uint64_t v = c == 0 ? cells[i].unit - cells[0].unit
                           : c == 1 ? cells[i].gap : c == 2 ? cells[i].bytes : cells[i].count;
                json_u64(&w->j, v);
            }
            json_end_arr(&w->j);
        }
        json_end_obj(&w->j);
    }
out:
    json_end_arr(&w->j);
    free(buf);
    free(cells);
}
