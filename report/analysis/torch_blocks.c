#include "analysis/torch_blocks.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/sat.h"
#include "util/sort.h"
#include "util/xalloc.h"

/* PyTorch's own Python code (torch/nn/modules/..., torch/_tensor.py) is
 * where most tensors are made on behalf of the user's line, which is the
 * first frame outside it. */
static bool in_torch(const struct sym_frame *f)
{
    return f->file != NULL && (strstr(f->file, "/torch/") != NULL || strncmp(f->file, "torch/", 6) == 0);
}

uint32_t torch_line_frame(const struct snapview *v, uint32_t stack_id, uint32_t *cs)
{
    *cs = sview_cs(v, stack_id);
    if (*cs == 0)
        return 0;
    const struct cstack *c = &v->db->cs[*cs];
    for (uint32_t i = 0; i < c->n; i++)
        if (!in_torch(sdb_frame(v->db, c, i)))
            return v->db->seq[c->first + i];
    return c->n > 0 ? v->db->seq[c->first] : 0;
}

static void add_line(struct torch_line **lines, size_t *n, size_t *cap, uint32_t frame, uint32_t cs,
                     uint64_t bytes, uint64_t requested)
{
    for (size_t i = 0; i < *n; i++) {
        if ((*lines)[i].frame == frame) {
            (*lines)[i].bytes = sat_add((*lines)[i].bytes, bytes);
            (*lines)[i].requested = sat_add((*lines)[i].requested, requested);
            (*lines)[i].count++;
            return;
        }
    }
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 8;
        *lines = xrealloc(*lines, *cap * sizeof **lines);
    }
    (*lines)[(*n)++] = (struct torch_line){.frame = frame, .cs = cs, .bytes = bytes, .requested = requested,
                                           .count = 1};
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

void torch_blocks_build(const struct snapview *v, struct torch_blocks *out)
{
    const struct snapshot *s = v->s;
    memset(out, 0, sizeof *out);
    out->status = s->torch.status;
    out->reserved_bytes = s->torch.reserved_bytes;
    out->allocated_bytes = s->torch.allocated_bytes;
    out->segments_reported = s->torch.segments;
    size_t cap_lines = 0;
    size_t *line_caps = NULL;
    for (size_t i = 0; i < s->ntorch_blocks; i++) {
        const struct snap_torch_block *b = &s->torch_blocks[i];
        /* Blocks come segment by segment: the last one first. */
        size_t k = out->nsegs && out->segs[out->nsegs - 1].address == b->segment ? out->nsegs - 1 : 0;
        while (k < out->nsegs && out->segs[k].address != b->segment)
            k++;
        if (k == out->nsegs) {
            out->segs = xrealloc(out->segs, (out->nsegs + 1) * sizeof *out->segs);
            line_caps = xrealloc(line_caps, (out->nsegs + 1) * sizeof *line_caps);
            line_caps[k] = 0;
            struct torch_segment *g = &out->segs[out->nsegs++];
            memset(g, 0, sizeof *g);
            g->address = b->segment;
            g->device = b->device;
            g->alloc = -1;
            for (size_t a = 0; a < s->nallocs; a++)
                if (s->allocs[a].ptr == b->segment && s->allocs[a].kind == GL_KIND_DEVICE) {
                    g->alloc = (long)a;
                    g->size = s->allocs[a].size;
                }
        }
        struct torch_segment *g = &out->segs[k];
        if (g->alloc < 0)
            g->size = sat_add(g->size, b->size);
        switch (b->state) {
        case GL_TORCH_BLOCK_ALLOCATED: {
            g->allocated_bytes = sat_add(g->allocated_bytes, b->size);
            g->allocated_count++;
            out->tensors++;
            uint32_t cs, frame = torch_line_frame(v, b->stack_id, &cs);
            add_line(&g->lines, &g->nlines, &line_caps[k], frame, cs, b->size, b->requested_size);
            add_line(&out->lines, &out->nlines, &cap_lines, frame, cs, b->size, b->requested_size);
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
    free(line_caps);
    for (size_t k = 0; k < out->nsegs; k++)
        sort_array(out->segs[k].lines, out->segs[k].nlines, sizeof *out->segs[k].lines, cmp_line);
    sort_array(out->lines, out->nlines, sizeof *out->lines, cmp_line);
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
