/* The page's view of PyTorch's caching allocator (TORCH, TORCH_BLOCKS), the
 * same figures as the text report's PYTORCH'S CACHE and diff's TENSORS IN
 * PYTORCH'S CACHE: without it, a PyTorch program's page showed segments
 * only, "Leaked memory: Nothing to show" beside a cache full of kept
 * tensors, and a growth chart whose suspect was the temporary that made the
 * cache grow (issue 35). */
#include "render/html/torch.h"

#include "analysis/multi/rate.h"
#include "analysis/multi/torch_multi.h"
#include "analysis/torch_blocks.h"
#include "render/json/common.h"
#include "render/report.h"

#define HT_SEG_LINES 16 /* tensor lines per segment; the rest are summed in other_* */

static const char *status_name(uint32_t status)
{
    switch (status) {
    case GL_TORCH_ANSWERED: return "answered";
    case GL_TORCH_NO_ANSWER: return "no_answer";
    default: return "failed";
    }
}

/* One line: its frame in the page's table (-1: PyTorch recorded no stack),
 * the whole stack of its first tensor, bytes and tensors. */
static void put_line(struct hw *w, const struct torch_line *l)
{
    json_obj(&w->j);
    kv_i(w, "frame", l->frame ? hw_frame(w, l->frame) : -1);
    kv_i(w, "stack", hw_stack(w, l->cs));
    kv_u(w, "bytes", l->bytes);
    kv_u(w, "requested", l->requested);
    kv_u(w, "count", l->count);
    json_end_obj(&w->j);
}

static void put_segment(struct hw *w, const struct report_ctx *r, const struct torch_segment *g)
{
    json_obj(&w->j);
    json_key(&w->j, "address");
    put_hex(w, g->address);
    kv_i(w, "device", g->device);
    kv_u(w, "size", g->size);
    /* the stack of gpuleak's cudaMalloc for it: only the request that did not fit */
    kv_i(w, "alloc_stack", g->alloc >= 0 ? hw_stack(w, sview_cs(r->v, r->s->allocs[g->alloc].stack_id)) : -1);
    kv_u(w, "allocated_bytes", g->allocated_bytes);
    kv_u(w, "allocated_count", g->allocated_count);
    kv_u(w, "pending_bytes", g->pending_bytes);
    kv_u(w, "cached_bytes", g->cached_bytes);
    json_key(&w->j, "lines");
    json_arr(&w->j);
    uint64_t other_bytes = 0, other_count = 0;
    for (size_t i = 0; i < g->nlines; i++) {
        if (i < HT_SEG_LINES) {
            put_line(w, &g->lines[i]);
        } else {
            other_bytes += g->lines[i].bytes;
            other_count += g->lines[i].count;
        }
    }
    json_end_arr(&w->j);
    kv_u(w, "lines_total", g->nlines);
    kv_u(w, "other_bytes", other_bytes);
    kv_u(w, "other_count", other_count);
    json_end_obj(&w->j);
}

void html_torch(struct hw *w, const struct report_ctx *r)
{
    json_key(&w->j, "torch");
    if (r->s->torch.status == 0) {
        json_null(&w->j);
        return;
    }
    json_obj(&w->j);
    kv_s(w, "status", status_name(r->s->torch.status));
    kv_u(w, "age_us", r->s->torch.age_us);
    const struct torch_check *c = &r->v->torch_check;
    json_key(&w->j, "problems");
    json_arr(&w->j);
    for (size_t i = 0; i < c->nproblems; i++)
        json_str(&w->j, c->problems[i]);
    json_end_arr(&w->j);
    struct torch_blocks t;
    torch_blocks_build(r->v, &t);
    kv_u(w, "reserved_bytes", t.reserved_bytes);
    kv_u(w, "allocated_bytes", t.allocated_bytes);
    kv_u(w, "segment_count", t.segments_reported);
    kv_u(w, "tensor_count", t.tensors);
    json_key(&w->j, "lines"); /* the whole cache's, bytes desc */
    json_arr(&w->j);
    for (size_t i = 0; i < t.nlines && i < HT_ROWS; i++)
        put_line(w, &t.lines[i]);
    json_end_arr(&w->j);
    kv_u(w, "lines_total", t.nlines);
    json_key(&w->j, "segments"); /* allocated bytes desc */
    json_arr(&w->j);
    for (size_t k = 0; k < t.nsegs && k < HT_ROWS; k++)
        put_segment(w, r, &t.segs[k]);
    json_end_arr(&w->j);
    kv_u(w, "segments_total", t.nsegs);
    json_end_obj(&w->j);
    torch_blocks_free(&t);
}

/* null where the snapshot has no view: its tensors are unknown, never 0 */
static void put_cols(struct hw *w, const char *k, const uint64_t *v, const bool *known, const size_t *cols,
                     size_t ncols)
{
    json_key(&w->j, k);
    json_arr(&w->j);
    for (size_t i = 0; i < ncols; i++) {
        if (known[cols[i]])
            json_u64(&w->j, v[cols[i]]);
        else
            json_null(&w->j);
    }
    json_end_arr(&w->j);
}

void html_torch_growth(struct hw *w, const struct msnap *m, size_t n, const size_t *cols, size_t ncols)
{
    struct torch_multi t;
    torch_multi_build(m, n, &t);
    json_key(&w->j, "torch");
    if (t.answered == 0) {
        json_null(&w->j);
        torch_multi_free(&t);
        return;
    }
    json_obj(&w->j);
    kv_u(w, "snapshots_with_torch", t.answered);
    struct series_clock clock = series_clock_of(m, n);
    json_key(&w->j, "rows"); /* the lines that changed: suspected first, then |change| desc */
    json_arr(&w->j);
    size_t shown = 0, changed = 0;
    for (size_t k = 0; k < t.nrows; k++) {
        const struct torch_mrow *row = &t.rows[k];
        if (row->change == 0 && !row->suspected)
            continue;
        changed++;
        if (shown == HT_ROWS)
            continue;
        shown++;
        json_obj(&w->j);
        kv_i(w, "frame", row->frame ? hw_frame(w, row->frame) : -1);
        kv_i(w, "stack", hw_stack(w, row->cs));
        put_cols(w, "bytes", row->bytes, t.known, cols, ncols);
        put_cols(w, "count", row->count, t.known, cols, ncols);
        kv_i(w, "growth", row->change);
        kv_b(w, "suspected_leak", row->suspected);
        json_per_hour(&w->j, torch_mrow_per_hour(&clock, m, &t, row));
        json_end_obj(&w->j);
    }
    json_end_arr(&w->j);
    kv_u(w, "rows_total", changed);
    json_end_obj(&w->j);
    torch_multi_free(&t);
}
