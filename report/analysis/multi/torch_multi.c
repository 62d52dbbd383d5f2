#include "analysis/multi/torch_multi.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/torch_blocks.h"
#include "util/sort.h"
#include "util/xalloc.h"

/* Rows by frame: row_at[frame] is the row's index + 1 (0: none yet), grown
 * as frames come; a search per line made a diff of 100k lines quadratic
 * (issue 34, defect 8).  Rows grow by doubling for the same reason. */
struct row_index {
    size_t *row_at, nat, cap_rows;
};

static struct torch_mrow *row_of(struct torch_multi *t, struct row_index *x, uint32_t frame, uint32_t cs)
{
    if (frame < x->nat && x->row_at[frame] != 0)
        return &t->rows[x->row_at[frame] - 1];
    if (frame >= x->nat) {
        size_t nat = 2 * (size_t)frame + 16;
        x->row_at = xrealloc(x->row_at, nat * sizeof *x->row_at);
        memset(x->row_at + x->nat, 0, (nat - x->nat) * sizeof *x->row_at);
        x->nat = nat;
    }
    if (t->nrows == x->cap_rows)
        t->rows = xgrow(t->rows, &x->cap_rows, 16, sizeof *t->rows);
    struct torch_mrow *r = &t->rows[t->nrows++];
    x->row_at[frame] = t->nrows;
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

/* A series of three snapshots or more (those of at[0..n)) whose bytes rose
 * at each one. */
static bool grew_every_step(const uint64_t *bytes, const size_t *at, size_t n)
{
    bool grew = n >= 3;
    for (size_t i = 1; i < n && grew; i++)
        grew = bytes[at[i]] > bytes[at[i - 1]];
    return grew;
}

bool torch_view_known(const struct msnap *m)
{
    /* A view that does not add up (torch_check.h) says nothing either. */
    return m->s.torch.status == GL_TORCH_ANSWERED && m->v.torch_check.nproblems == 0;
}

/* A row's change and verdict over the snapshots at[0..na) that carry the
 * view.  final_repeat: the last snapshot may be the exit one repeating the
 * step before (multi.h). */
static void judge_row(struct torch_mrow *r, const size_t *at, size_t na, bool final_repeat)
{
    r->change = na ? (int64_t)(r->bytes[at[na - 1]] - r->bytes[at[0]]) : 0;
    /* A line that is a Python line: a block without a stack is no place to name. */
    if (r->frame == 0)
        return;
    r->suspected = grew_every_step(r->bytes, at, na);
    /* the exit snapshot repeating the last step is no step (multi.h) */
    if (!r->suspected && final_repeat && na >= 2 && r->bytes[at[na - 1]] == r->bytes[at[na - 2]])
        r->suspected = grew_every_step(r->bytes, at, na - 1);
}

void torch_multi_build(const struct msnap *m, size_t n, struct torch_multi *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    out->known = xcalloc(n ? n : 1, sizeof *out->known);
    size_t *at = xcalloc(n ? n : 1, sizeof *at); /* the snapshots with the view */
    struct row_index x = {0};
    for (size_t i = 0; i < n; i++) {
        if (!torch_view_known(&m[i]))
            continue;
        out->known[i] = true;
        at[out->answered++] = i;
        struct torch_blocks tb;
        torch_blocks_build(&m[i].v, &tb);
        for (size_t k = 0; k < tb.nlines; k++) {
            struct torch_mrow *r = row_of(out, &x, tb.lines[k].frame, tb.lines[k].cs);
            r->bytes[i] = tb.lines[k].bytes;
            r->count[i] = tb.lines[k].count;
        }
        torch_blocks_free(&tb);
    }
    free(x.row_at);
    /* The exit snapshot may repeat the step before only where both carry the view. */
    bool final_repeat = msnap_final_repeat_possible(m, n) && out->known[n - 1] && out->known[n - 2];
    for (size_t k = 0; k < out->nrows; k++)
        judge_row(&out->rows[k], at, out->answered, final_repeat);
    free(at);
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
    free(t->known);
    memset(t, 0, sizeof *t);
}
