#include "render/json/torch.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/multi/rate.h"
#include "analysis/multi/torch_multi.h"
#include "analysis/step_rate.h"
#include "analysis/torch_blocks.h"
#include "analysis/torch_steps.h"
#include "render/json/common.h"

static const char *status_name(uint32_t status)
{
    switch (status) {
    case 0: return "absent";
    case GL_TORCH_ANSWERED: return "answered";
    case GL_TORCH_NO_ANSWER: return "no_answer";
    default: return "failed";
    }
}

/* The frame a line is named by: function, file, line (nulls without one). */
static void line_frame(const struct report_ctx *r, struct json *j, uint32_t frame)
{
    const struct sym_frame *fr = frame ? &r->db->frames[frame] : NULL;
    json_key(j, "function"); json_str(j, fr ? fr->function : NULL);
    json_key(j, "file"); json_str(j, fr ? fr->file : NULL);
    json_key(j, "line"); json_u64(j, fr ? fr->line : 0);
}

/* "settings": both names of PyTorch's allocator variable as the process
 * had them, the one PyTorch 2.14 reads (PYTORCH_CUDA_ALLOC_CONF first:
 * docs/pytorch.md), and PyTorch's own allocator_settings. */
static void settings(const struct snapshot *s, struct json *j)
{
    const char *unified = snap_env(s, "PYTORCH_ALLOC_CONF"), *old = snap_env(s, "PYTORCH_CUDA_ALLOC_CONF");
    json_key(j, "settings");
    json_obj(j);
    json_key(j, "PYTORCH_ALLOC_CONF"); json_str(j, unified);
    json_key(j, "PYTORCH_CUDA_ALLOC_CONF"); json_str(j, old);
    json_key(j, "in_force");
    json_str(j, old ? "PYTORCH_CUDA_ALLOC_CONF" : unified ? "PYTORCH_ALLOC_CONF" : NULL);
    json_key(j, "differ"); json_bool(j, unified && old && strcmp(unified, old) != 0);
    json_key(j, "allocator_settings");
    if (!s->have_torch_settings) {
        json_null(j);
    } else {
        json_obj(j);
        for (size_t i = 0; i < s->ntorch_settings; i++) {
            const struct snap_str *e = &s->torch_settings[i];
            const char *eq = memchr(e->s, '=', e->len);
            size_t klen = eq ? (size_t)(eq - e->s) : e->len;
            char key[256];
            snprintf(key, sizeof key, "%.*s", (int)(klen < sizeof key ? klen : sizeof key - 1), e->s);
            json_key(j, key);
            if (eq)
                json_strn(j, eq + 1, e->len - klen - 1);
            else
                json_null(j);
        }
        json_end_obj(j);
    }
    json_end_obj(j);
}

void json_torch(const struct report_ctx *r, struct json *j)
{
    json_key(j, "torch");
    json_obj(j);
    json_key(j, "status"); json_str(j, status_name(r->s->torch.status));
    json_key(j, "age_us"); json_u64(j, r->s->torch.age_us);
    struct torch_blocks t;
    torch_blocks_build(r->v, &t);
    json_key(j, "reserved_bytes"); json_u64(j, t.reserved_bytes);
    json_key(j, "allocated_bytes"); json_u64(j, t.allocated_bytes);
    json_key(j, "segment_count"); json_u64(j, t.segments_reported);
    json_key(j, "tensor_count"); json_u64(j, t.tensors);
    json_key(j, "max_allocated_bytes"); json_u64(j, r->s->torch.max_allocated_bytes);
    json_key(j, "max_reserved_bytes"); json_u64(j, r->s->torch.max_reserved_bytes);
    settings(r->s, j);
    json_key(j, "top_lines"); /* the whole cache's lines, most live bytes first */
    json_arr(j);
    for (size_t i = 0; i < t.nlines && i < 5; i++) {
        json_obj(j);
        json_key(j, "bytes"); json_u64(j, t.lines[i].bytes);
        json_key(j, "count"); json_u64(j, t.lines[i].count);
        line_frame(r, j, t.lines[i].frame);
        json_end_obj(j);
    }
    json_end_arr(j);
    const struct torch_check *c = &r->v->torch_check;
    json_key(j, "consistent"); json_bool(j, c->nproblems == 0);
    json_key(j, "problems");
    json_arr(j);
    for (size_t i = 0; i < c->nproblems; i++)
        json_str(j, c->problems[i]);
    json_end_arr(j);
    json_key(j, "segments");
    json_arr(j);
    for (size_t k = 0; k < t.nsegs; k++) {
        const struct torch_segment *g = &t.segs[k];
        json_obj(j);
        json_key(j, "address"); json_u64(j, g->address);
        json_key(j, "device"); json_i64(j, g->device);
        json_key(j, "size"); json_u64(j, g->size);
        json_key(j, "seen_by_gpuleak"); json_bool(j, g->alloc >= 0);
        json_key(j, "stack_id"); json_u64(j, g->alloc >= 0 ? r->s->allocs[g->alloc].stack_id : 0);
        json_key(j, "allocated_bytes"); json_u64(j, g->allocated_bytes);
        json_key(j, "allocated_count"); json_u64(j, g->allocated_count);
        json_key(j, "pending_free_bytes"); json_u64(j, g->pending_bytes);
        json_key(j, "cached_bytes"); json_u64(j, g->cached_bytes);
        json_key(j, "cached_count"); json_u64(j, g->cached_count);
        json_key(j, "tensors");
        json_arr(j);
        for (size_t i = 0; i < g->nlines; i++) {
            const struct torch_line *l = &g->lines[i];
            json_obj(j);
            json_key(j, "bytes"); json_u64(j, l->bytes);
            json_key(j, "requested_bytes"); json_u64(j, l->requested);
            json_key(j, "count"); json_u64(j, l->count);
            line_frame(r, j, l->frame);
            json_frames(j, r->db, l->cs);
            json_end_obj(j);
        }
        json_end_arr(j);
        json_end_obj(j);
    }
    json_end_arr(j);
    json_end_obj(j);
    torch_blocks_free(&t);
}

void json_torch_diff(const struct report_ctx *r, struct json *j, const struct msnap *m, size_t n)
{
    struct torch_multi t;
    torch_multi_build(m, n, &t);
    json_key(j, "torch_lines");
    json_obj(j);
    json_key(j, "snapshots_with_torch"); json_u64(j, t.answered);
    /* the snapshots without a view: their tensors are unknown (null), never 0 */
    json_key(j, "snapshots_without_torch");
    json_arr(j);
    for (size_t i = 0; i < n; i++)
        if (!t.known[i])
            json_u64(j, i);
    json_end_arr(j);
    struct series_clock clock = series_clock_of(m, n);
    json_key(j, "lines");
    json_arr(j);
    for (size_t k = 0; k < t.nrows; k++) {
        const struct torch_mrow *row = &t.rows[k];
        json_obj(j);
        line_frame(r, j, row->frame);
        json_key(j, "bytes"); json_u64_inline_known(j, row->bytes, t.known, n);
        json_key(j, "count"); json_u64_inline_known(j, row->count, t.known, n);
        json_key(j, "growth"); json_i64(j, row->change);
        json_key(j, "suspected_leak"); json_bool(j, row->suspected);
        json_per_hour(j, torch_mrow_per_hour(&clock, m, &t, row));
        json_frames(j, r->db, row->cs);
        json_end_obj(j);
    }
    json_end_arr(j);
    json_end_obj(j);
    torch_multi_free(&t);
}

/* "torch_steps": the optimizer steps gpuleak's step hook kept (TORCH_STEP
 * records), and the lines that grew over them.  Absent when the snapshot
 * has none. */
static void step_line(struct json *j, const struct snap_torch_step_line *l)
{
    json_key(j, "function"); json_str(j, l->function.s);
    json_key(j, "file"); json_str(j, l->file.s);
    json_key(j, "line"); json_u64(j, l->line);
}

static void json_step(struct json *j, const struct snap_torch_step *t)
{
    json_obj(j);
    json_key(j, "step"); json_u64(j, t->step);
    json_key(j, "time_ns"); json_u64(j, t->time_ns);
    json_key(j, "allocated_bytes"); json_u64(j, t->allocated);
    json_key(j, "reserved_bytes"); json_u64(j, t->reserved);
    json_key(j, "window"); json_bool(j, (t->flags & GL_TORCH_STEP_F_WINDOW) != 0);
    json_key(j, "lines_known"); json_bool(j, (t->flags & GL_TORCH_STEP_F_LINES) != 0);
    json_key(j, "recorded"); json_bool(j, (t->flags & GL_TORCH_STEP_F_RECORDED) != 0);
    json_key(j, "lines_sampled"); json_bool(j, (t->flags & GL_TORCH_STEP_F_SAMPLED) != 0);
    if (t->has_trailer) {
        json_key(j, "recorded_steps"); json_u64(j, t->recorded_steps);
        json_key(j, "lines_every"); json_u64(j, t->lines_every);
    }
    json_key(j, "lines");
    json_arr(j);
    for (uint32_t i = 0; i < t->lines; i++) {
        json_obj(j);
        step_line(j, &t->line_list[i]);
        json_key(j, "bytes"); json_u64(j, t->line_list[i].bytes);
        json_key(j, "count"); json_u64(j, t->line_list[i].count);
        json_end_obj(j);
    }
    json_end_arr(j);
    json_end_obj(j);
}

void json_torch_steps(const struct report_ctx *r, struct json *j)
{
    const struct snapshot *s = r->s;
    if (s->ntorch_steps == 0)
        return;
    json_key(j, "torch_steps");
    json_obj(j);
    json_key(j, "steps");
    json_arr(j);
    for (size_t k = 0; k < s->ntorch_steps; k++)
        json_step(j, &s->torch_steps[k]);
    json_end_arr(j);
    struct step_growth *g;
    size_t n = torch_steps_growth(s, SIZE_MAX, &g);
    json_key(j, "growing_lines");
    json_arr(j);
    for (size_t i = 0; i < n; i++) {
        json_obj(j);
        step_line(j, g[i].line);
        json_key(j, "from_step"); json_u64(j, g[i].from_step);
        json_key(j, "to_step"); json_u64(j, g[i].to_step);
        json_key(j, "from_bytes"); json_u64(j, g[i].from_bytes);
        json_key(j, "grown_bytes"); json_u64(j, g[i].grown);
        json_key(j, "count"); json_u64(j, g[i].line->count);
        json_key(j, "every_step"); json_bool(j, g[i].every_step);
        json_per_hour(j, step_growth_per_hour(s, &g[i]));
        json_end_obj(j);
    }
    json_end_arr(j);
    free(g);
    json_end_obj(j);
}

void json_growth_leak(struct json *j, const struct growth_leak *g)
{
    json_obj(j);
    json_key(j, "kind"); json_str(j, "leak-by-growth");
    if (g->line) {
        step_line(j, g->line);
    } else { /* the allocated total: lines unknown */
        json_key(j, "function"); json_null(j);
        json_key(j, "file"); json_null(j);
        json_key(j, "line"); json_null(j);
    }
    json_key(j, "bytes_per_step"); json_u64(j, g->per_step);
    json_key(j, "from_step"); json_u64(j, g->from_step);
    json_key(j, "to_step"); json_u64(j, g->to_step);
    json_key(j, "from_bytes"); json_u64(j, g->from_bytes);
    json_key(j, "to_bytes"); json_u64(j, g->to_bytes);
    json_key(j, "count");
    if (g->line)
        json_u64(j, g->line->count);
    else
        json_null(j);
    json_end_obj(j);
}

void json_leaks_by_growth(const struct report_ctx *r, struct json *j)
{
    if (r->s->ntorch_steps == 0)
        return;
    struct growth_verdict v;
    torch_growth_verdict(r->s, r->growth_steps, r->min_bytes, &v);
    growth_reachable_at_exit(r->v, &v);
    json_key(j, "leaks_by_growth");
    json_obj(j);
    json_key(j, "growth_steps"); json_u64(j, v.steps);
    json_key(j, "judged"); json_bool(j, v.judged);
    json_key(j, "lines_known"); json_bool(j, v.lines_known);
    json_key(j, "lines_sampled"); json_bool(j, v.lines_sampled);
    json_key(j, "bytes_per_step"); json_u64(j, v.per_step);
    json_key(j, "leaks");
    json_arr(j);
    for (size_t i = 0; i < v.n; i++)
        json_growth_leak(j, &v.leaks[i]);
    json_end_arr(j);
    json_key(j, "still_reachable");
    json_obj(j);
    json_key(j, "step"); json_u64(j, v.last_step);
    json_key(j, "at_exit"); json_bool(j, v.reachable_at_exit); /* TORCH_BLOCKS at exit, not the step's lines */
    json_key(j, "bytes"); json_u64(j, v.reachable_bytes);
    json_key(j, "count"); json_u64(j, v.reachable_count);
    json_key(j, "lines");
    json_arr(j);
    for (size_t i = 0; i < v.nreachable; i++) {
        json_obj(j);
        step_line(j, v.reachable[i]);
        json_key(j, "bytes"); json_u64(j, v.reachable[i]->bytes);
        json_key(j, "count"); json_u64(j, v.reachable[i]->count);
        json_end_obj(j);
    }
    json_end_arr(j);
    json_end_obj(j);
    json_end_obj(j);
    growth_verdict_free(&v);
}

void json_leaks_by_growth_diff(const struct report_ctx *r, struct json *j, const struct msnap *m, size_t n)
{
    if (n == 0)
        return;
    struct report_ctx last = *r;
    last.s = &m[n - 1].s;
    last.v = &m[n - 1].v;
    json_leaks_by_growth(&last, j);
}

void json_rank_leaks_by_growth(const struct report_ctx *r, struct json *j, const struct snapshot *s)
{
    json_key(j, "leaks_by_growth");
    json_arr(j);
    if (s->ntorch_steps) {
        struct growth_verdict v;
        torch_growth_verdict(s, r->growth_steps, r->min_bytes, &v);
        for (size_t i = 0; i < v.n; i++)
            json_growth_leak(j, &v.leaks[i]);
        growth_verdict_free(&v);
    }
    json_end_arr(j);
}
