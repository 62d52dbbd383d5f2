#include "analysis/torch_steps.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/torch_blocks.h"
#include "model/stackdb.h"
#include "model/symbolize.h"
#include "snapshot_format.h"
#include "util/xalloc.h"

static bool same_line(const struct snap_torch_step_line *a, const struct snap_torch_step_line *b)
{
    return a->line == b->line && a->file.len == b->file.len && a->function.len == b->function.len &&
           memcmp(a->file.s, b->file.s, a->file.len) == 0 &&
           memcmp(a->function.s, b->function.s, a->function.len) == 0;
}

/* The bytes of line l in step t; 0 when the step does not list it (it held
 * none, or too little to be among the step's largest). */
static uint64_t bytes_in(const struct snap_torch_step *t, const struct snap_torch_step_line *l)
{
    for (uint32_t i = 0; i < t->lines; i++)
        if (same_line(&t->line_list[i], l))
            return t->line_list[i].bytes;
    return 0;
}

static int by_growth(const void *pa, const void *pb)
{
    const struct step_growth *a = pa, *b = pb;
    if (a->grown != b->grown)
        return a->grown > b->grown ? -1 : 1;
    int c = strcmp(a->line->file.s, b->line->file.s);
    if (c != 0)
        return c;
    return a->line->line < b->line->line ? -1 : a->line->line > b->line->line;
}

static bool grew_at_every_step(const struct snapshot *s, size_t first, const struct snap_torch_step_line *l)
{
    uint64_t prev = bytes_in(&s->torch_steps[first], l);
    for (size_t k = first + 1; k < s->ntorch_steps; k++) {
        const struct snap_torch_step *t = &s->torch_steps[k];
        if (!(t->flags & GL_TORCH_STEP_F_LINES))
            continue;
        uint64_t b = bytes_in(t, l);
        if (b <= prev)
            return false;
        prev = b;
    }
    return true;
}

size_t torch_steps_growth(const struct snapshot *s, size_t max, struct step_growth **out)
{
    *out = NULL;
    size_t first = s->ntorch_steps, with_lines = 0;
    for (size_t k = 0; k < s->ntorch_steps; k++)
        if (s->torch_steps[k].flags & GL_TORCH_STEP_F_LINES) {
            if (first == s->ntorch_steps)
                first = k;
            with_lines++;
        }
    /* the last step with lines: with lines at sampled steps only
     * (GPULEAK_STEP_LINES_EVERY), the steps after it have none */
    const struct snap_torch_step *last = NULL;
    for (size_t k = s->ntorch_steps; k-- > 0 && last == NULL;)
        if (s->torch_steps[k].flags & GL_TORCH_STEP_F_LINES)
            last = &s->torch_steps[k];
    if (with_lines < 2)
        return 0;
    struct step_growth *g = xcalloc(last->lines + 1, sizeof *g);
    size_t n = 0;
    for (uint32_t i = 0; i < last->lines; i++) {
        const struct snap_torch_step_line *l = &last->line_list[i];
        uint64_t from = bytes_in(&s->torch_steps[first], l);
        if (l->line == 0 || l->bytes <= from)
            continue; /* no Python line, or did not grow */
        g[n++] = (struct step_growth){l, from, l->bytes - from, s->torch_steps[first].step, last->step,
                                      grew_at_every_step(s, first, l)};
    }
    qsort(g, n, sizeof *g, by_growth);
    *out = g;
    return n < max ? n : max;
}

/* The indexes of the last want records (with lines, when lines is set),
 * oldest first, in idx: how many there were, at most want. */
static size_t last_records(const struct snapshot *s, bool lines, size_t want, size_t *idx)
{
    size_t n = 0;
    for (size_t k = s->ntorch_steps; k-- > 0 && n < want;)
        if (!lines || (s->torch_steps[k].flags & GL_TORCH_STEP_F_LINES))
            idx[want - 1 - n++] = k;
    if (n < want)
        memmove(idx, idx + want - n, n * sizeof *idx);
    return n;
}

static uint64_t per_step(uint64_t from, uint64_t to, uint64_t from_step, uint64_t to_step, unsigned steps)
{
    uint64_t span = to_step > from_step ? to_step - from_step : steps;
    return (to - from) / span;
}

/* A line's bytes per step between two records with lines.  Its tensors are
 * those made while PyTorch's recorder was on, so where the records count
 * the steps it was on for (recorded_steps, written since 2026-12: lines at
 * gpuleak's sampled steps), the growth is over those steps; otherwise over
 * the step numbers, as the recorder was on throughout. */
static uint64_t line_per_step(const struct snap_torch_step *from, const struct snap_torch_step *to,
                              uint64_t from_bytes, uint64_t to_bytes, unsigned steps)
{
    if (from->recorded_steps != 0 && to->recorded_steps > from->recorded_steps)
        return (to_bytes - from_bytes) / (to->recorded_steps - from->recorded_steps);
    return per_step(from_bytes, to_bytes, from->step, to->step, steps);
}

/* Line l's bytes at each record of the window, strictly growing, by at
 * least floor in all: its leak in *g. */
static bool line_grew(const struct snapshot *s, const size_t *idx, size_t nidx, uint64_t floor,
                      const struct snap_torch_step_line *l, struct growth_leak *g)
{
    uint64_t prev = bytes_in(&s->torch_steps[idx[0]], l);
    for (size_t k = 1; k < nidx; k++) {
        uint64_t b = bytes_in(&s->torch_steps[idx[k]], l);
        if (b <= prev)
            return false;
        prev = b;
    }
    const struct snap_torch_step *from = &s->torch_steps[idx[0]], *to = &s->torch_steps[idx[nidx - 1]];
    uint64_t first = bytes_in(from, l);
    if (prev - first < floor)
        return false;
    *g = (struct growth_leak){l, first, prev, line_per_step(from, to, first, prev, (unsigned)nidx - 1), from->step,
                              to->step};
    return true;
}

/* The allocated total at each record of the window, strictly growing. */
static bool allocated_grew(const struct snapshot *s, const size_t *idx, size_t nidx, uint64_t floor,
                           struct growth_leak *g)
{
    for (size_t k = 1; k < nidx; k++)
        if (s->torch_steps[idx[k]].allocated <= s->torch_steps[idx[k - 1]].allocated)
            return false;
    const struct snap_torch_step *from = &s->torch_steps[idx[0]], *to = &s->torch_steps[idx[nidx - 1]];
    if (to->allocated - from->allocated < floor)
        return false;
    *g = (struct growth_leak){NULL, from->allocated, to->allocated,
                              per_step(from->allocated, to->allocated, from->step, to->step, (unsigned)nidx - 1),
                              from->step, to->step};
    return true;
}

static int by_per_step(const void *pa, const void *pb)
{
    const struct growth_leak *a = pa, *b = pb;
    if (a->per_step != b->per_step)
        return a->per_step > b->per_step ? -1 : 1;
    int c = strcmp(a->line->file.s, b->line->file.s);
    if (c != 0)
        return c;
    return a->line->line < b->line->line ? -1 : a->line->line > b->line->line;
}

static bool is_leak(const struct growth_verdict *v, const struct snap_torch_step_line *l)
{
    for (size_t i = 0; i < v->n; i++)
        if (v->leaks[i].line == l)
            return true;
    return false;
}

/* The last step's lines that are not leaks, as the step lists them (most
 * bytes first). */
static void still_reachable(const struct snap_torch_step *last, struct growth_verdict *v)
{
    v->reachable = xcalloc(last->lines + 1, sizeof *v->reachable);
    for (uint32_t i = 0; i < last->lines; i++) {
        const struct snap_torch_step_line *l = &last->line_list[i];
        if (is_leak(v, l))
            continue;
        v->reachable[v->nreachable++] = l;
        v->reachable_bytes += l->bytes;
        v->reachable_count += l->count;
    }
}

/* The allocated total grew at each of the last N steps, but fewer than
 * N + 1 steps have lines (lines at gpuleak's sampled steps only, or a short
 * run): the lines that grew at each of the steps with lines there are (at
 * least two, the last N + 1 at most) name the growth.  Whether any did is
 * returned; the verdict's leaks are then those lines. */
static bool name_by_sampled_lines(const struct snapshot *s, uint64_t floor, struct growth_verdict *out)
{
    size_t idx[GROWTH_STEPS_MAX + 1], want = out->steps + 1;
    size_t n = last_records(s, true, want, idx);
    if (n < 2)
        return false;
    const struct snap_torch_step *last = &s->torch_steps[idx[n - 1]];
    struct growth_leak *leaks = xcalloc(last->lines + 1, sizeof *leaks);
    size_t found = 0;
    for (uint32_t i = 0; i < last->lines; i++)
        if (last->line_list[i].line != 0 && line_grew(s, idx, n, floor, &last->line_list[i], &leaks[found]))
            found++;
    if (found == 0) {
        free(leaks);
        return false;
    }
    qsort(leaks, found, sizeof *leaks, by_per_step);
    free(out->leaks);
    out->leaks = leaks;
    out->n = found;
    out->lines_known = out->lines_sampled = true;
    out->last_step = last->step;
    still_reachable(last, out);
    return true;
}

void torch_growth_verdict(const struct snapshot *s, unsigned steps, uint64_t floor, struct growth_verdict *out)
{
    memset(out, 0, sizeof *out);
    out->steps = steps == 0 ? GROWTH_STEPS_DEFAULT : steps > GROWTH_STEPS_MAX ? GROWTH_STEPS_MAX : steps;
    floor = floor ? floor : 1;
    size_t want = out->steps + 1, idx[GROWTH_STEPS_MAX + 1];
    if (last_records(s, true, want, idx) == want) {
        out->judged = out->lines_known = true;
        const struct snap_torch_step *last = &s->torch_steps[idx[want - 1]];
        out->last_step = last->step;
        out->leaks = xcalloc(last->lines + 1, sizeof *out->leaks);
        for (uint32_t i = 0; i < last->lines; i++)
            if (last->line_list[i].line != 0 && /* a Python line to name */
                line_grew(s, idx, want, floor, &last->line_list[i], &out->leaks[out->n]))
                out->n++;
        qsort(out->leaks, out->n, sizeof *out->leaks, by_per_step);
        still_reachable(last, out);
    } else if (last_records(s, false, want, idx) == want) {
        out->judged = true;
        out->last_step = s->torch_steps[idx[want - 1]].step;
        out->leaks = xcalloc(1, sizeof *out->leaks);
        out->n = allocated_grew(s, idx, want, floor, &out->leaks[0]);
        if (out->n != 0)
            name_by_sampled_lines(s, floor, out);
    }
    for (size_t i = 0; i < out->n; i++)
        out->per_step += out->leaks[i].per_step;
}

void growth_verdict_free(struct growth_verdict *v)
{
    free(v->leaks);
    free(v->reachable);
    free(v->exit_lines);
    memset(v, 0, sizeof *v);
}

static struct snap_str str_of(const char *s)
{
    return (struct snap_str){(char *)(s ? s : ""), s ? (uint32_t)strlen(s) : 0};
}

/* Whether the frame names a leak by growth's line (same file and line). */
static bool frame_is_leak(const struct growth_verdict *v, const struct sym_frame *f)
{
    for (size_t i = 0; i < v->n; i++) {
        const struct snap_torch_step_line *l = v->leaks[i].line;
        if (l && f->file && l->line == f->line && strcmp(l->file.s, f->file) == 0)
            return true;
    }
    return false;
}

void growth_reachable_at_exit(const struct snapview *sv, struct growth_verdict *v)
{
    if (!sv || !(sv->s->proc.flags & GL_SNAP_F_FINAL) || sv->s->torch.status != GL_TORCH_ANSWERED)
        return;
    struct torch_blocks t;
    torch_blocks_build(sv, &t);
    struct snap_torch_step_line *lines = t.nlines ? xcalloc(t.nlines, sizeof *lines) : NULL;
    const struct snap_torch_step_line **ptrs = t.nlines ? xcalloc(t.nlines, sizeof *ptrs) : NULL;
    if (!lines || !ptrs) { /* none, or out of memory: the last step's, as before */
        free(lines);
        free(ptrs);
        torch_blocks_free(&t);
        return;
    }
    free(v->reachable);
    free(v->exit_lines);
    v->reachable = ptrs;
    v->exit_lines = lines;
    v->nreachable = 0;
    v->reachable_bytes = v->reachable_count = 0;
    v->reachable_at_exit = true;
    for (size_t i = 0; i < t.nlines; i++) { /* bytes desc, as torch_blocks sorts them */
        const struct torch_line *tl = &t.lines[i];
        const struct sym_frame *f = tl->frame ? &sv->db->frames[tl->frame] : NULL;
        if (f && frame_is_leak(v, f))
            continue;
        struct snap_torch_step_line *l = &lines[v->nreachable];
        *l = (struct snap_torch_step_line){tl->bytes, tl->count, f ? f->line : 0, str_of(f ? f->file : NULL),
                                           str_of(f ? f->function : NULL)};
        ptrs[v->nreachable++] = l;
        v->reachable_bytes += tl->bytes;
        v->reachable_count += tl->count;
    }
    torch_blocks_free(&t);
}
