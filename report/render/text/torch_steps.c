#include "render/text/torch_steps.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/step_rate.h"
#include "analysis/torch_steps.h"
#include "render/text/textout.h"

#define FIRST_SHOWN 1  /* steps shown from the start of the series */
#define LAST_SHOWN 10  /* and from its end */
#define GROWING_SHOWN 5 /* growing lines */

/* "function (file:line)", the file by its last component, as frames are. */
void put_step_line(FILE *f, const struct snap_torch_step_line *l)
{
    const char *slash = strrchr(l->file.s, '/');
    const char *base = slash ? slash + 1 : l->file.s;
    put_safe(f, l->function.s, l->function.len);
    fputs(" (", f);
    put_safe(f, base, l->file.len - (size_t)(base - l->file.s));
    fprintf(f, ":%" PRIu32 ")", l->line);
}

static void put_step(FILE *f, const struct snap_torch_step *t, const struct snap_torch_step *prev)
{
    fprintf(f, "    %s %" PRIu64 ": allocated ", t->flags & GL_TORCH_STEP_F_WINDOW ? "window" : "step", t->step);
    put_bytes(f, t->allocated);
    if (prev != NULL) {
        int64_t d = (int64_t)(t->allocated - prev->allocated);
        fprintf(f, ", %s", d < 0 ? "-" : "+");
        put_bytes(f, (uint64_t)(d < 0 ? -d : d));
        fprintf(f, " since %s %" PRIu64, prev->flags & GL_TORCH_STEP_F_WINDOW ? "window" : "step", prev->step);
    }
    fputs("; reserved ", f);
    put_bytes(f, t->reserved);
    fputc('\n', f);
}

/* "step" or "window": what the record numbered n is. */
static const char *kind_of(const struct snapshot *s, uint64_t n)
{
    for (size_t k = 0; k < s->ntorch_steps; k++)
        if (s->torch_steps[k].step == n)
            return s->torch_steps[k].flags & GL_TORCH_STEP_F_WINDOW ? "window" : "step";
    return "step";
}

/* The growth per hour of a line over time windows, on a line of its own;
 * nothing over optimizer steps. */
static void put_step_rate(FILE *f, const struct snapshot *s, const struct step_growth *g)
{
    uint64_t per_hour = step_growth_per_hour(s, g);
    if (per_hour == 0)
        return;
    fputs("        rate: ", f);
    put_per_hour(f, per_hour);
    fputc('\n', f);
}

/* Lines recorded at gpuleak's sampled steps only (GPULEAK_STEP_LINES_EVERY):
 * says which steps, since a line's tensors then are those made in them. */
static void put_sampled(FILE *f, const struct snapshot *s)
{
    size_t n = 0;
    uint32_t every = 0;
    for (size_t k = 0; k < s->ntorch_steps; k++)
        if (s->torch_steps[k].flags & GL_TORCH_STEP_F_SAMPLED) {
            n++;
            every = s->torch_steps[k].lines_every;
        }
    if (n == 0)
        return;
    fputs("Lines from gpuleak's sampled steps (", f);
    size_t shown = 0;
    for (size_t k = 0; k < s->ntorch_steps && shown < 8; k++)
        if (s->torch_steps[k].flags & GL_TORCH_STEP_F_SAMPLED)
            fprintf(f, "%s%" PRIu64, shown++ ? ", " : "", s->torch_steps[k].step);
    fputs(n > shown ? ", ..." : "", f);
    if (every != 0)
        fprintf(f, "; one in %" PRIu32 ", GPULEAK_STEP_LINES_EVERY", every);
    fputs("): a line's live tensors are those made in them.\n", f);
}

static void put_growing(const struct report_ctx *r)
{
    FILE *f = r->out;
    const struct snapshot *s = r->s;
    struct step_growth *g;
    size_t n = torch_steps_growth(s, GROWING_SHOWN, &g);
    bool lines = false;
    for (size_t k = 0; k < s->ntorch_steps; k++)
        lines |= (s->torch_steps[k].flags & GL_TORCH_STEP_F_LINES) != 0;
    if (lines)
        put_sampled(f, s);
    if (!lines)
        fputs("Live tensors by line: not recorded (PyTorch's recorder was off; see GPULEAK_TORCH_LINES).\n", f);
    else if (n == 0)
        fputs("No Python line's live tensors grew over these steps.\n", f);
    else
        fprintf(f, "Python lines whose live tensors grew, from %s %" PRIu64 " to %s %" PRIu64 ":\n",
                kind_of(s, g[0].from_step), g[0].from_step, kind_of(s, g[0].to_step), g[0].to_step);
    for (size_t i = 0; i < n; i++) {
        fputs("    +", f);
        put_bytes(f, g[i].grown);
        fputs(": ", f);
        put_step_line(f, g[i].line);
        fputs(g[i].every_step ? ", grew at each one\n" : "\n", f);
        fputs("        ", f);
        put_bytes(f, g[i].from_bytes);
        fputs(" -> ", f);
        put_bytes(f, g[i].line->bytes);
        fputs(" in ", f);
        put_count(f, g[i].line->count, "tensor");
        fputc('\n', f);
        put_step_rate(f, s, &g[i]);
    }
    free(g);
}

/* Whether steps were left unviewed between kept records (paced views,
 * docs/pytorch.md "Which steps are viewed"): a gap between two records
 * after the first (the ring's drop is between the first and the rest). */
static bool paced(const struct snapshot *s)
{
    for (size_t k = 2; k < s->ntorch_steps; k++)
        if (s->torch_steps[k].step - s->torch_steps[k - 1].step > 1)
            return true;
    return false;
}

void text_torch_steps(const struct report_ctx *r)
{
    const struct snapshot *s = r->s;
    if (s->ntorch_steps == 0)
        return;
    FILE *f = r->out;
    put_title(r, "PYTORCH STEPS");
    bool windows = false;
    for (size_t k = 0; k < s->ntorch_steps; k++)
        windows |= (s->torch_steps[k].flags & GL_TORCH_STEP_F_WINDOW) != 0;
    fprintf(f, "PyTorch's optimizer steps%s, as gpuleak saw them at the end of each\n"
               "(the first and the last %u are kept; this snapshot has %zu):\n",
            windows ? " and time windows (GPULEAK_STEP_INTERVAL)" : "", GL_TORCH_STEPS_KEPT, s->ntorch_steps);
    if (paced(s))
        fprintf(f, "After step %u, steps are viewed at a pace (GPULEAK_STEP_VIEW_EVERY): the numbers skip those not viewed.\n",
                GL_TORCH_STEPS_KEPT);
    for (size_t k = 0; k < s->ntorch_steps; k++) {
        if (k == FIRST_SHOWN && s->ntorch_steps > FIRST_SHOWN + LAST_SHOWN) {
            size_t skip = s->ntorch_steps - FIRST_SHOWN - LAST_SHOWN;
            fprintf(f, "    ... %zu steps not shown (--json lists them)\n", skip);
            k += skip - 1;
            continue;
        }
        put_step(f, &s->torch_steps[k], k > 0 ? &s->torch_steps[k - 1] : NULL);
    }
    put_growing(r);
}
