#include "analysis/torch_steps.h"

#include <stdlib.h>
#include <string.h>

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
