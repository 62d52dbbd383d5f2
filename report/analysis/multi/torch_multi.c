#include "analysis/multi/torch_multi.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/torch_blocks.h"
#include "util/sort.h"
#include "util/xalloc.h"

static struct torch_mrow *row_of(struct torch_multi *t, uint32_t frame, uint32_t cs)
{
    for (size_t i = 0; i < t->nrows; i++)
        if (t->rows[i].frame == frame)
            return &t->rows[i];
    t->rows = xrealloc(t->rows, (t->nrows + 1) * sizeof *t->rows);
    struct torch_mrow *r = &t->rows[t->nrows++];
    memset(r, 0, sizeof *r);
    r->frame = frame;
    r->cs = cs;
    r->bytes = xcalloc(t->n, sizeof *r->bytes);
    r->count = xcalloc(t->n, sizeof *r->count);
    return r;
}

static int cmp_row(const void *pa, const void *pb)
{
    const struct torch_mrow *a = pa, *b = pb;
    if (a->suspected != b->suspected)
        return a->suspected ? -1 : 1;
    uint64_t ma = a->change < 0 ? (uint64_t)-a->change : (uint64_t)a->change;
    uint64_t mb = b->change < 0 ? (uint64_t)-b->change : (uint64_t)b->change;
    if (ma != mb)
        return ma > mb ? -1 : 1;
    return a->frame < b->frame ? -1 : a->frame > b->frame;
}

void torch_multi_build(const struct msnap *m, size_t n, struct torch_multi *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    for (size_t i = 0; i < n; i++) {
        if (m[i].s.torch.status != GL_TORCH_ANSWERED)
            continue;
        out->answered++;
        struct torch_blocks tb;
        torch_blocks_build(&m[i].v, &tb);
        for (size_t k = 0; k < tb.nlines; k++) {
            struct torch_mrow *r = row_of(out, tb.lines[k].frame, tb.lines[k].cs);
            r->bytes[i] = tb.lines[k].bytes;
            r->count[i] = tb.lines[k].count;
        }
        torch_blocks_free(&tb);
    }
    for (size_t k = 0; k < out->nrows; k++) {
        struct torch_mrow *r = &out->rows[k];
        r->change = (int64_t)(r->bytes[n - 1] - r->bytes[0]);
        /* A series: three snapshots or more, each with PyTorch's view, and
         * a line that is a Python line (a block without a stack is no
         * place to name). */
        r->suspected = n >= 3 && out->answered == n && r->frame != 0;
        for (size_t i = 1; i < n && r->suspected; i++)
            r->suspected = r->bytes[i] > r->bytes[i - 1];
    }
    sort_array(out->rows, out->nrows, sizeof *out->rows, cmp_row);
}

bool torch_multi_suspected(const struct torch_multi *t)
{
    return t->nrows > 0 && t->rows[0].suspected;
}

void torch_multi_free(struct torch_multi *t)
{
    for (size_t k = 0; k < t->nrows; k++) {
        free(t->rows[k].bytes);
        free(t->rows[k].count);
    }
    free(t->rows);
    memset(t, 0, sizeof *t);
}
