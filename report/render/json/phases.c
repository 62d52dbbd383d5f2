/* "phases": every phase with its figures per device, exactly as the
 * analysis has them; the page (render/html) draws its table from this. */
#include "render/json/phases.h"

#include "analysis/phases.h"
#include "render/json/common.h"
#include "render/report.h"

static void device(struct report_ctx *r, struct json *j, const struct phase_dev *pd)
{
    const struct categories *cat = r->ph->cat;
    json_obj(j);
    json_key(j, "device"); json_i64(j, pd->device);
    json_key(j, "start_bytes"); json_u64(j, pd->start_bytes);
    json_key(j, "end_bytes"); json_u64(j, pd->end_bytes);
    json_key(j, "net_bytes");
    json_i64(j, pd->end_bytes >= pd->start_bytes ? (int64_t)(pd->end_bytes - pd->start_bytes)
                                                 : -(int64_t)(pd->start_bytes - pd->end_bytes));
    json_key(j, "peak_bytes"); json_u64(j, pd->peak_bytes);
    json_key(j, "peak_at_start"); json_bool(j, pd->peak_at_start);
    json_key(j, "peak_seq"); json_u64(j, pd->peak_seq);
    json_key(j, "peak_time_ns"); json_u64(j, pd->peak_time_ns);
    json_key(j, "allocs"); json_u64(j, pd->allocs);
    json_key(j, "frees"); json_u64(j, pd->frees);
    json_key(j, "alloc_bytes"); json_u64(j, pd->alloc_bytes);
    json_key(j, "free_bytes"); json_u64(j, pd->free_bytes);
    json_key(j, "peak_categories");
    json_arr(j);
    for (size_t i = 0; i < pd->ncats; i++) {
        json_obj(j);
        json_key(j, "category"); json_str(j, cat->names[pd->cats[i].cat]);
        json_key(j, "bytes"); json_u64(j, pd->cats[i].bytes);
        json_key(j, "count"); json_u64(j, pd->cats[i].count);
        json_end_obj(j);
    }
    json_end_arr(j);
    json_key(j, "peak_stacks");
    json_arr(j);
    for (size_t i = 0; i < pd->nstacks; i++) {
        json_obj(j);
        json_key(j, "bytes"); json_u64(j, pd->stacks[i].bytes);
        json_key(j, "count"); json_u64(j, pd->stacks[i].count);
        json_key(j, "stack_id"); json_u64(j, pd->stacks[i].stack_id);
        json_frames(j, r->db, pd->stacks[i].cs);
        json_end_obj(j);
    }
    json_end_arr(j);
    json_key(j, "peak_stacks_total"); json_u64(j, pd->nstacks_total);
    json_key(j, "peak_stacks_hidden_bytes"); json_u64(j, pd->hidden_bytes);
    json_key(j, "peak_stacks_hidden_count"); json_u64(j, pd->hidden_count);
    json_end_obj(j);
}

void json_phases(struct report_ctx *r, struct json *j)
{
    const struct phases *ph = r->ph;
    json_key(j, "phases");
    json_obj(j);
    json_key(j, "present"); json_bool(j, ph && ph->present);
    json_key(j, "wrapped"); json_bool(j, ph && ph->wrapped);
    json_key(j, "first_seq"); json_u64(j, ph ? ph->first_seq : 0);
    json_key(j, "inconsistent"); json_bool(j, ph && ph->inconsistent);
    json_key(j, "unmatched_ends"); json_u64(j, ph ? ph->unmatched_ends : 0);
    json_key(j, "too_deep"); json_u64(j, ph ? ph->too_deep : 0);
    if (r->s->sampling.mode) { /* GPULEAK_MODE=light: stacks and categories not scaled */
        json_key(j, "stacks_sampled_only"); json_bool(j, true);
    }
    json_key(j, "categories");
    json_arr(j);
    for (size_t i = 0; ph && ph->cat && i < ph->cat->nnames; i++)
        json_str(j, ph->cat->names[i]);
    json_end_arr(j);
    json_key(j, "list");
    json_arr(j);
    for (size_t i = 0; ph && i < ph->n; i++) {
        const struct phase *p = &ph->p[i];
        json_obj(j);
        json_key(j, "index"); json_u64(j, i);
        json_key(j, "label");
        if (p->label)
            json_strn(j, p->label->text.s, p->name_len);
        else
            json_null(j);
        json_key(j, "label_id"); json_u64(j, p->label_id);
        json_key(j, "depth"); json_u64(j, p->depth);
        json_key(j, "parent"); json_i64(j, p->parent);
        json_key(j, "bracketed"); json_bool(j, p->bracketed);
        json_key(j, "start_known"); json_bool(j, p->start_known);
        json_key(j, "start_seq"); json_u64(j, p->start_seq);
        json_key(j, "start_time_ns"); json_u64(j, p->start_time_ns);
        json_key(j, "end_seq"); json_u64(j, p->end_seq);
        json_key(j, "end_time_ns"); json_u64(j, p->end_time_ns);
        json_key(j, "ended_by"); json_str(j, phase_end_name(p->end));
        json_key(j, "devices");
        json_arr(j);
        for (size_t k = 0; k < p->ndevs; k++)
            device(r, j, &p->devs[k]);
        json_end_arr(j);
        json_end_obj(j);
    }
    json_end_arr(j);
    json_end_obj(j);
}
