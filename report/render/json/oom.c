/* The "out_of_memory" member of the JSON report. */
#include "render/json/oom.h"

#include "analysis/history.h"
#include "analysis/oom.h"
#include "model/stackdb.h"
#include "render/json/common.h"
#include "render/report.h"
#include "snapshot_format.h"

void json_oom(struct report_ctx *r, struct json *j)
{
    const struct history *h = r->h;
    json_key(j, "out_of_memory");
    json_obj(j);
    json_key(j, "failed_count"); json_u64(j, oom_failed_count(r->s));
    json_key(j, "events");
    json_arr(j);
    for (size_t i = 0; h && h->present && i < h->nmarks; i++) {
        const struct hist_mark *m = &h->marks[i];
        if (!oom_is_mark(m))
            continue;
        json_obj(j);
        json_key(j, "seq"); json_u64(j, m->seq);
        json_key(j, "time_ns"); json_u64(j, m->time_ns);
        json_key(j, "device"); json_i64(j, m->device);
        json_key(j, "api"); json_str(j, gl_api_name(m->api));
        json_key(j, "kind"); json_str(j, gl_kind_name(m->kind));
        json_key(j, "requested_bytes"); json_u64(j, m->size);
        json_key(j, "mem_free"); json_u64(j, m->mem_free);
        json_key(j, "mem_total"); json_u64(j, m->mem_total);
        json_key(j, "live_bytes"); json_u64(j, m->live_bytes);
        json_key(j, "unaccounted_bytes"); json_u64(j, oom_elsewhere(m));
        json_key(j, "stack_id"); json_u64(j, m->stack_id);
        json_key(j, "then");
        if (m->then_seq) {
            json_obj(j);
            json_key(j, "seq"); json_u64(j, m->then_seq);
            json_key(j, "time_ns"); json_u64(j, m->then_time_ns);
            json_key(j, "stack_id"); json_u64(j, m->then_stack_id);
            json_key(j, "same_stack");
            json_bool(j, sview_cs(r->v, m->then_stack_id) == sview_cs(r->v, m->stack_id));
            json_end_obj(j);
        } else {
            json_null(j);
        }
        json_frames(j, r->db, sview_cs(r->v, m->stack_id));
        json_end_obj(j);
    }
    json_end_arr(j);
    json_end_obj(j);
}
