/* The page's "address_map" member: each device's address space in at most
 * HM_CELLS cells (analysis/addrmap.c bins it), with its fragmentation
 * figures. */
#include "render/html/addrmap.h"

#include "analysis/addrmap.h"
#include "analysis/frag.h"
#include "render/report.h"

void html_addrmap(struct hw *w, const struct report_ctx *r)
{
    const struct snapshot *s = r->s;
    json_key(&w->j, "addrmap");
    json_arr(&w->j);
    for (size_t d = 0; d < r->fr->ndev; d++) {
        const struct frag_dev *fd = &r->fr->dev[d];
        struct addrmap m;
        if (addrmap_bin(s, fd->device, HM_CELLS, HM_SMALL_GAP, &m)) {
            w->oom = true;
            break;
        }
        json_obj(&w->j);
        kv_i(w, "device", fd->device);
        kv_u(w, "unit", m.unit);
        json_key(&w->j, "base");
        put_hex(w, m.ncells ? m.cells[0].unit * m.unit : 0);
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
            for (size_t i = 0; i < m.ncells; i++) {
                const struct addrmap_cell *x = &m.cells[i];
                uint64_t v = c == 0 ? x->unit - m.cells[0].unit : c == 1 ? x->gap : c == 2 ? x->bytes : x->count;
                json_u64(&w->j, v);
            }
            json_end_arr(&w->j);
        }
        json_end_obj(&w->j);
        addrmap_free(&m);
    }
    json_end_arr(&w->j);
}
