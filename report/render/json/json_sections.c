/* The "timeline" and "fragmentation" members of the JSON report.  The raw
 * series are written as one-line integer arrays: a million points would be
 * several million lines pretty-printed. */
#include "render/report.h"

#include "analysis/analyze.h"
#include "analysis/frag.h"
#include "analysis/history.h"
#include "model/snap_read.h"
#include "model/stackdb.h"
#include "model/suppress.h"
#include "model/symbolize.h"
#include "render/json/common.h"
#include "render/json/json.h"
#include "render/json/json_sections.h"

static const char *mark_type(uint16_t t)
{
    switch (t) {
    case GL_EV_OOM: return "oom";
    case GL_EV_SNAPSHOT: return "snapshot";
    case GL_EV_ANNOTATION: return "annotation";
    }
    return "unknown";
}

void json_timeline(struct report_ctx *r, struct json *j)
{
    const struct history *h = r->h;
    json_key(j, "timeline");
    json_obj(j);
    json_key(j, "present"); json_bool(j, h->present);
    json_key(j, "events"); json_u64(j, r->s->nevents);
    json_key(j, "first_seq"); json_u64(j, h->first_seq);
    json_key(j, "last_seq"); json_u64(j, h->last_seq);
    json_key(j, "start_ns"); json_u64(j, h->t0);
    json_key(j, "end_ns"); json_u64(j, h->t1);
    json_key(j, "allocs"); json_u64(j, h->nalloc);
    json_key(j, "frees"); json_u64(j, h->nfree);
    json_key(j, "inconsistent"); json_bool(j, h->inconsistent);
    json_key(j, "marks");
    json_arr(j);
    for (size_t i = 0; i < h->nmarks; i++) {
        const struct hist_mark *m = &h->marks[i];
        json_obj(j);
        json_key(j, "type"); json_str(j, mark_type(m->type));
        json_key(j, "seq"); json_u64(j, m->seq);
        json_key(j, "time_ns"); json_u64(j, m->time_ns);
        json_key(j, "device"); json_i64(j, m->device);
        json_key(j, "label");
        if (m->label)
            json_strn(j, m->label->text.s, m->label->text.len);
        else
            json_null(j);
        if (m->type == GL_EV_OOM) {
            json_key(j, "requested_bytes"); json_u64(j, m->size);
            json_key(j, "mem_free"); json_u64(j, m->mem_free);
            json_key(j, "mem_total"); json_u64(j, m->mem_total);
            json_key(j, "stack_id"); json_u64(j, m->stack_id);
            json_frames(j, r->db, sview_cs(r->v, m->stack_id));
        }
        json_end_obj(j);
    }
    json_end_arr(j);
    json_key(j, "devices");
    json_arr(j);
    for (size_t d = 0; h->present && d < h->ndev; d++) {
        const struct hist_dev *hd = &h->dev[d];
        if (hd->n == 0)
            continue;
        json_obj(j);
        json_key(j, "device"); json_i64(j, hd->device);
        json_key(j, "start_bytes"); json_u64(j, hd->base);
        json_key(j, "max_bytes"); json_u64(j, hd->max_bytes);
        json_key(j, "max_time_ns"); json_u64(j, hd->max_time_ns);
        json_key(j, "max_seq"); json_u64(j, hd->max_seq);
        json_key(j, "time_ns"); json_u64_inline(j, hd->time_ns, hd->n);
        json_key(j, "bytes"); json_u64_inline(j, hd->bytes, hd->n);
        json_end_obj(j);
    }
    json_end_arr(j);
    json_end_obj(j);
}

static void classes(struct json *j, const uint64_t *count, const uint64_t *bytes)
{
    json_arr(j);
    for (unsigned k = 0; k < HIST_NCLASS; k++) {
        if (!count[k])
            continue;
        json_obj(j);
        json_key(j, "min_bytes"); json_u64(j, hist_size_class_low(k));
        json_key(j, "count"); json_u64(j, count[k]);
        json_key(j, "bytes"); json_u64(j, bytes[k]);
        json_end_obj(j);
    }
    json_end_arr(j);
}

void json_fragmentation(struct report_ctx *r, struct json *j)
{
    const struct frag *fr = r->fr;
    json_key(j, "fragmentation");
    json_obj(j);
    json_key(j, "page_size"); json_u64(j, FRAG_PAGE);
    json_key(j, "devices");
    json_arr(j);
    for (size_t d = 0; d < fr->ndev; d++) {
        const struct frag_dev *fd = &fr->dev[d];
        json_obj(j);
        json_key(j, "device"); json_i64(j, fd->device);
        json_key(j, "fragmentation"); json_double(j, fd->headline);
        json_key(j, "live_bytes"); json_u64(j, fd->live_bytes);
        json_key(j, "live_count"); json_u64(j, fd->live_count);
        json_key(j, "driver_used_bytes");
        if (fd->have_driver)
            json_u64(j, fd->driver_used);
        else
            json_null(j);
        json_key(j, "address_bytes"); json_u64(j, fd->addr_bytes);
        json_key(j, "address_count"); json_u64(j, fd->addr_count);
        json_key(j, "span_start"); json_u64(j, fd->span_lo);
        json_key(j, "span_end"); json_u64(j, fd->span_hi);
        json_key(j, "pages"); json_u64(j, fd->pages);
        json_key(j, "page_bytes"); json_u64(j, fd->pages * FRAG_PAGE);
        json_key(j, "sparse_pages"); json_u64(j, fd->sparse_pages);
        json_key(j, "sparse_empty_bytes"); json_u64(j, fd->sparse_empty_bytes);
        json_key(j, "holes"); json_u64(j, fd->holes);
        json_key(j, "hole_bytes"); json_u64(j, fd->hole_bytes);
        json_key(j, "largest_hole"); json_u64(j, fd->largest_hole);
        json_key(j, "pinning");
        json_arr(j);
        for (size_t i = 0; i < fd->npins; i++) {
            json_obj(j);
            json_key(j, "empty_bytes"); json_u64(j, fd->pins[i].empty_bytes);
            json_key(j, "count"); json_u64(j, fd->pins[i].count);
            json_key(j, "stack_id"); json_u64(j, fd->pins[i].stack_id);
            json_frames(j, r->db, fd->pins[i].cs);
            json_end_obj(j);
        }
        json_end_arr(j);
        json_key(j, "pinning_total"); json_u64(j, fd->npins_total);
        json_key(j, "live_size_classes");
        classes(j, fd->live_class_count, fd->live_class_bytes);
        const struct hist_dev *hd = NULL;
        for (size_t i = 0; r->h->present && i < r->h->ndev; i++)
            if (r->h->dev[i].device == fd->device)
                hd = &r->h->dev[i];
        json_key(j, "requested_size_classes");
        if (hd) {
            classes(j, hd->req_count, hd->req_bytes);
        } else {
            json_null(j);
        }
        json_key(j, "pools");
        json_arr(j);
        for (size_t i = 0; i < r->s->npools; i++) {
            const struct snap_pool *p = &r->s->pools[i];
            if (p->device != fd->device)
                continue;
            json_obj(j);
            json_key(j, "handle"); json_u64(j, p->handle);
            json_key(j, "graph"); json_bool(j, p->handle == GL_POOL_GRAPH_MEM);
            json_key(j, "reserved_bytes"); json_u64(j, p->reserved);
            json_key(j, "used_bytes"); json_u64(j, p->used);
            json_key(j, "reserved_high"); json_u64(j, p->reserved_high);
            json_key(j, "used_high"); json_u64(j, p->used_high);
            json_end_obj(j);
        }
        json_end_arr(j);
        json_key(j, "pool_reserved_bytes"); json_u64(j, fd->pool_reserved);
        json_key(j, "pool_used_bytes"); json_u64(j, fd->pool_used);
        json_key(j, "va_reserved_bytes"); json_u64(j, fd->va_reserved);
        json_key(j, "va_mapped_bytes"); json_u64(j, fd->va_mapped);
        json_key(j, "physical_bytes"); json_u64(j, fd->physical);
        json_key(j, "physical_unmapped_bytes"); json_u64(j, fd->physical_unmapped);
        json_key(j, "reservations"); json_u64(j, fd->nreservations);
        json_key(j, "mappings"); json_u64(j, fd->nmappings);
        json_key(j, "physical_handles"); json_u64(j, fd->nphysical);
        json_end_obj(j);
    }
    json_end_arr(j);
    json_key(j, "idle_reservations"); json_u64(j, fr->idle_reservations);
    json_key(j, "idle_reserved_bytes"); json_u64(j, fr->idle_reserved);
    json_end_obj(j);
}
