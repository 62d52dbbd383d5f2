/* The "out_of_memory" member of the JSON report. */
#include "render/json/oom.h"

#include "analysis/history.h"
#include "analysis/oom.h"
#include "analysis/oomkind.h"
#include "model/stackdb.h"
#include "render/json/common.h"
#include "render/report.h"
#include "snapshot_format.h"

/* "classification": the kind and every number its rules compare. */
static void classification(struct json *j, const struct oom_facts *x)
{
    struct oom_verdict v = oom_classify(x);
    json_key(j, "classification");
    json_obj(j);
    json_key(j, "kind"); json_str(j, oom_kind_name(v.kind));
    json_key(j, "requested_bytes"); json_u64(j, x->request);
    json_key(j, "free_bytes"); json_u64(j, x->free);
    json_key(j, "total_bytes"); json_u64(j, x->total);
    json_key(j, "used_bytes"); json_u64(j, v.used);
    json_key(j, "own_bytes"); json_u64(j, x->own);
    json_key(j, "elsewhere_bytes"); json_u64(j, v.elsewhere);
    json_key(j, "missing_bytes"); json_u64(j, v.missing);
    json_key(j, "torch_view"); json_bool(j, x->torch);
    json_key(j, "reserved_bytes"); json_u64(j, x->reserved);
    json_key(j, "allocated_bytes"); json_u64(j, x->allocated);
    json_key(j, "cached_bytes"); json_u64(j, v.cached);
    json_key(j, "largest_free_block_bytes"); json_u64(j, x->largest_free);
    json_key(j, "allowed_bytes"); json_u64(j, x->allowed);
    json_end_obj(j);
}

/* "torch": PyTorch's out-of-memory (TORCH_OOM), or null. */
static void torch_oom(struct report_ctx *r, struct json *j)
{
    struct oom_facts x;
    json_key(j, "torch");
    if (!oom_torch_facts(r->s, &x)) {
        json_null(j);
        return;
    }
    json_obj(j);
    json_key(j, "device"); json_i64(j, r->s->torch_oom.device);
    json_key(j, "requested_bytes"); json_u64(j, x.request);
    json_key(j, "allowed_bytes"); json_u64(j, x.allowed);
    json_key(j, "mem_free"); json_u64(j, x.free);
    classification(j, &x);
    json_end_obj(j);
}

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
        struct oom_facts x;
        oom_mark_facts(m, &x);
        classification(j, &x);
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
    torch_oom(r, j);
    json_end_obj(j);
}
