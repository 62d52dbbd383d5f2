/* The "invalid_frees" member of the JSON report. */
#include "render/json/bad_frees.h"

#include <stdlib.h>

#include "analysis/bad_free_block.h"
#include "analysis/bad_frees.h"
#include "model/stackdb.h"
#include "render/json/common.h"
#include "render/report.h"
#include "snapshot_format.h"
#include "util/sat.h"

void json_bad_frees(struct report_ctx *r, struct json *j)
{
    struct bad_free_totals t;
    const struct snap_bad_free **v = bad_frees_sorted(r->s, &t);
    json_key(j, "invalid_frees");
    json_obj(j);
    json_key(j, "count"); json_u64(j, t.count);
    json_key(j, "refused_count"); json_u64(j, t.refused_count);
    json_key(j, "double_count"); json_u64(j, t.double_count);
    json_key(j, "double_sites"); json_u64(j, t.double_sites);
    json_key(j, "sites");
    json_arr(j);
    struct bad_free_block *blocks = bad_free_blocks(r->s);
    for (size_t i = 0; i < t.sites; i++) {
        const struct snap_bad_free *b = v[i];
        const struct bad_free_block *k = &blocks[b - r->s->bad_frees];
        json_obj(j);
        json_key(j, "count"); json_u64(j, b->count);
        json_key(j, "refused"); json_bool(j, bad_free_refused(b));
        bool twice = bad_free_is_double(r->s, b);
        json_key(j, "kind");
        json_str(j, !bad_free_refused(b) ? "unseen allocation"
                    : twice              ? "double free"
                    : k->found           ? "not the start"
                                         : "invalid free");
        json_key(j, "api"); json_str(j, gl_api_name(b->api));
        json_key(j, "api_code"); json_u64(j, b->api);
        json_key(j, "device"); json_i64(j, b->device);
        json_key(j, "first_ptr"); json_u64(j, b->ptr);
        json_key(j, "first_time_ns"); json_u64(j, b->time_ns);
        json_key(j, "stack_id"); json_u64(j, b->stack_id);
        json_frames(j, r->db, sview_cs(r->v, b->stack_id));
        json_key(j, "inside_block"); /* the address is not a block's start */
        if (!k->found || twice) {
            json_null(j);
        } else {
            json_obj(j);
            json_key(j, "offset"); json_u64(j, b->ptr - k->base);
            json_key(j, "ptr"); json_u64(j, k->base);
            json_key(j, "bytes"); json_u64(j, k->bytes);
            json_key(j, "alloc_seq"); json_u64(j, k->alloc_seq);
            json_key(j, "alloc_time_ns"); json_u64(j, k->alloc_time_ns);
            json_key(j, "freed_time_ns");
            if (k->freed)
                json_u64(j, k->free_time_ns);
            else
                json_null(j);
            json_key(j, "stack_id"); json_u64(j, k->stack_id);
            json_frames(j, r->db, sview_cs(r->v, k->stack_id));
            json_end_obj(j);
        }
        const struct snap_event *al, *fr = bad_free_previous(r->s, b, &al);
        json_key(j, "previous_free");
        if (fr == NULL) {
            json_null(j);
        } else {
            json_obj(j);
            json_key(j, "seq"); json_u64(j, fr->seq);
            json_key(j, "time_ns"); json_u64(j, fr->time_ns);
            json_key(j, "bytes"); json_u64(j, fr->size);
            json_key(j, "alloc_seq");
            if (al)
                json_u64(j, al->seq);
            else
                json_null(j);
            json_key(j, "alloc_stack_id"); json_u64(j, fr->stack_id);
            json_frames(j, r->db, sview_cs(r->v, fr->stack_id)); /* the allocation's */
            json_key(j, "free_stack"); /* the free's own, with GPULEAK_FREE_STACKS */
            if (fr->free_stack_id == 0) {
                json_null(j);
            } else {
                json_obj(j);
                json_key(j, "stack_id"); json_u64(j, fr->free_stack_id);
                json_frames(j, r->db, sview_cs(r->v, fr->free_stack_id));
                json_end_obj(j);
            }
            json_end_obj(j);
        }
        json_end_obj(j);
    }
    json_end_arr(j);
    json_end_obj(j);
    free(blocks);
    free(v);
}
