#include "analysis/torch_blocks.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "model/user_frame.h"
#include "util/keyed.h"
#include "util/sat.h"
#include "util/sort.h"
#include "util/xalloc.h"

/* PyTorch's own Python code (torch/nn/modules/..., torch/_tensor.py) is
 * where most tensors are made on behalf of the user's line, which is the
 * first frame outside it. */
uint32_t torch_line_frame(const struct snapview *v, uint32_t stack_id, uint32_t *cs)
{
    *cs = sview_cs(v, stack_id);
    return sdb_user_frame(v->db, *cs);
}

static int cmp_line(const void *pa, const void *pb)
{
    const struct torch_line *a = pa, *b = pb;
    if (a->bytes != b->bytes)
        return a->bytes > b->bytes ? -1 : 1;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return a->frame < b->frame ? -1 : a->frame > b->frame;
}

static int cmp_seg(const void *pa, const void *pb)
{
    const struct torch_segment *a = pa, *b = pb;
    if (a->allocated_bytes != b->allocated_bytes)
        return a->allocated_bytes > b->allocated_bytes ? -1 : 1;
    return a->address < b->address ? -1 : a->address > b->address;
}

/* A live block on its way to a line: its segment (index in segs), its
 * frame, and its place in the snapshot (a line's cs is its first block's). */
struct line_entry {
    size_t seg, order;
    uint32_t frame, cs;
    uint64_t bytes, requested;
};

static int cmp_entry_seg_frame(const void *pa, const void *pb)
{
    const struct line_entry *a = pa, *b = pb;
    if (a->seg != b->seg)
        return a->seg < b->seg ? -1 : 1;
    if (a->frame != b->frame)
        return a->frame < b->frame ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static int cmp_entry_frame(const void *pa, const void *pb)
{
    const struct line_entry *a = pa, *b = pb;
    if (a->frame != b->frame)
        return a->frame < b->frame ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

/* Entries [from, to) sorted so that each line's are together, first block
 * first: one line per run of equal frames.  *n lines. */
static struct torch_line *merge_lines(const struct line_entry *e, size_t from, size_t to, size_t *n)
{
    struct torch_line *lines = NULL;
    *n = 0;
    for (size_t i = from; i < to; i++) {
        if (*n == 0 || lines[*n - 1].frame != e[i].frame) {
            if ((*n & (*n - 1)) == 0) /* 0, 1, 2, 4...: doubled when full */
                lines = xrealloc(lines, (*n ? 2 * *n : 1) * sizeof *lines);
            lines[(*n)++] = (struct torch_line){.frame = e[i].frame, .cs = e[i].cs};
        }
        struct torch_line *l = &lines[*n - 1];
        l->bytes = sat_add(l->bytes, e[i].bytes);
        l->requested = sat_add(l->requested, e[i].requested);
        l->count++;
    }
    return lines;
}

/* The distinct segments the blocks name, sorted by address, each with its
 * first block's device and gpuleak's allocation there (the last device
 * allocation at that address; -1 for none).  Sorted, not searched one by
 * one: a view of 100k blocks in 100k segments stays n log n. */
static void make_segments(const struct snapshot *s, struct torch_blocks *out, struct keyed_index **keys_out)
{
    struct keyed_index *keys = xcalloc(s->ntorch_blocks + 1, sizeof *keys);
    for (size_t i = 0; i < s->ntorch_blocks; i++)
        keys[i] = (struct keyed_index){s->torch_blocks[i].segment, i};
    sort_array(keys, s->ntorch_blocks, sizeof *keys, keyed_index_cmp);
    size_t n = 0;
    for (size_t i = 0; i < s->ntorch_blocks; i++)
        if (n == 0 || keys[n - 1].key != keys[i].key)
            keys[n++] = keys[i];
    out->segs = xcalloc(n + 1, sizeof *out->segs);
    out->nsegs = n;
    for (size_t k = 0; k < n; k++) {
        struct torch_segment *g = &out->segs[k];
        g->address = keys[k].key;
        g->device = s->torch_blocks[keys[k].i].device;
        g->alloc = -1;
    }
    for (size_t a = 0; a < s->nallocs; a++) {
        if (s->allocs[a].kind != GL_KIND_DEVICE)
            continue;
        size_t k = keyed_index_lower(keys, n, s->allocs[a].ptr);
        if (k < n && keys[k].key == s->allocs[a].ptr) {
            out->segs[k].alloc = (long)a;
            out->segs[k].size = s->allocs[a].size;
        }
    }
    *keys_out = keys;
}

void torch_blocks_build(const struct snapview *v, struct torch_blocks *out)
{
    const struct snapshot *s = v->s;
    memset(out, 0, sizeof *out);
    out->status = s->torch.status;
    out->reserved_bytes = s->torch.reserved_bytes;
    out->allocated_bytes = s->torch.allocated_bytes;
    out->segments_reported = s->torch.segments;
    struct keyed_index *keys;
    make_segments(s, out, &keys);
    struct line_entry *e = xcalloc(s->ntorch_blocks + 1, sizeof *e);
    size_t ne = 0;
    for (size_t i = 0; i < s->ntorch_blocks; i++) {
        const struct snap_torch_block *b = &s->torch_blocks[i];
        size_t k = keyed_index_lower(keys, out->nsegs, b->segment);
        struct torch_segment *g = &out->segs[k];
        if (g->alloc < 0)
            g->size = sat_add(g->size, b->size);
        if (b->flags & GL_TORCH_BLOCK_F_BEFORE_ATTACH)
            g->before_attach = true;
        switch (b->state) {
        case GL_TORCH_BLOCK_ALLOCATED: {
            g->allocated_bytes = sat_add(g->allocated_bytes, b->size);
            g->allocated_count++;
            out->tensors++;
            uint32_t cs, frame = torch_line_frame(v, b->stack_id, &cs);
            e[ne++] = (struct line_entry){k, i, frame, cs, b->size, b->requested_size};
            break;
        }
        case GL_TORCH_BLOCK_PENDING_FREE:
            g->pending_bytes = sat_add(g->pending_bytes, b->size);
            break;
        default:
            g->cached_bytes = sat_add(g->cached_bytes, b->size);
            g->cached_count++;
            break;
        }
    }
    free(keys);
    /* Lines by sorting, not by a search per block: linear in lines would
     * make 100k distinct lines quadratic (issue 34, defect 8). */
    sort_array(e, ne, sizeof *e, cmp_entry_seg_frame);
    for (size_t i = 0, end; i < ne; i = end) {
        for (end = i; end < ne && e[end].seg == e[i].seg; end++)
            ;
        struct torch_segment *g = &out->segs[e[i].seg];
        g->lines = merge_lines(e, i, end, &g->nlines);
        sort_array(g->lines, g->nlines, sizeof *g->lines, cmp_line);
    }
    for (size_t i = 0; i < ne; i++)
        e[i].seg = 0; /* the whole cache's lines: one segment */
    sort_array(e, ne, sizeof *e, cmp_entry_frame);
    out->lines = merge_lines(e, 0, ne, &out->nlines);
    sort_array(out->lines, out->nlines, sizeof *out->lines, cmp_line);
    free(e);
    sort_array(out->segs, out->nsegs, sizeof *out->segs, cmp_seg);
}

void torch_blocks_free(struct torch_blocks *t)
{
    for (size_t k = 0; k < t->nsegs; k++)
        free(t->segs[k].lines);
    free(t->segs);
    free(t->lines);
    memset(t, 0, sizeof *t);
}
