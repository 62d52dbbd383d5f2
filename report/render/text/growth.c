/* PyTorch's verdict in the text report (growth.h): the leaks by growth first
 * in SUMMARY and LEAKS, what is live but did not grow summarised apart,
 * never as a leak. */
#include "render/text/growth.h"

#include <inttypes.h>

#include "render/text/textout.h"
#include "render/text/torch_steps.h"
#include "util/fmt.h"

#define REACHABLE_SHOWN 5 /* still-reachable sites, without --top */

/* What the allocated fallback asks for: the setting that names the lines. */
#define LINES_UNKNOWN "lines unknown: set GPULEAK_TORCH_LINES=start to name them"

void growth_judge(const struct report_ctx *r, struct growth_verdict *v)
{
    torch_growth_verdict(r->s, r->growth_steps, r->min_bytes, v);
    growth_reachable_at_exit(r->v, v);
}

/* "262,144 bytes/step (256.0 KiB)" */
static void put_per_step(FILE *f, uint64_t bytes)
{
    char n[32];
    fmt_commas(n, sizeof n, bytes);
    fprintf(f, "%s bytes/step (", n);
    put_human(f, bytes);
    fputc(')', f);
}

void text_growth_summary(const struct report_ctx *r, const struct growth_verdict *v)
{
    FILE *f = r->out;
    if (v->n == 0)
        return;
    put_color(r, TC_RED);
    fprintf(f, "    %-18s", "leaked by growth:");
    put_per_step(f, v->per_step);
    if (v->lines_known) {
        fputs(" at ", f);
        put_count(f, v->n, "line");
    } else {
        fputs(" allocated", f);
    }
    fprintf(f, ", steps %" PRIu64 " to %" PRIu64, v->leaks[0].from_step, v->leaks[0].to_step);
    put_color_end(r);
    if (!v->lines_known)
        fputs("; " LINES_UNKNOWN, f);
    fputc('\n', f);
}

void text_reachable_summary(const struct report_ctx *r, const struct growth_verdict *v)
{
    FILE *f = r->out;
    if (v->nreachable == 0)
        return;
    fprintf(f, "    %-18s", "still reachable:");
    put_bytes(f, v->reachable_bytes);
    fputs(" in ", f);
    put_count(f, v->reachable_count, "tensor");
    fputs(" at ", f);
    put_count(f, v->nreachable, "line");
    fputs(" that did not grow\n", f);
}

bool text_growth_leaks(const struct report_ctx *r, const struct growth_verdict *v)
{
    FILE *f = r->out;
    if (v->n == 0)
        return false;
    if (v->lines_sampled)
        fprintf(f,
                "Leaked by growth: allocated memory grew at each of the last %u steps, and these lines'\n"
                "live tensors at each step with lines (steps %" PRIu64 " to %" PRIu64 ", sampled):\n",
                v->steps, v->leaks[0].from_step, v->leaks[0].to_step);
    else
        fprintf(f, "Leaked by growth: %s grew at each of the last %u steps (steps %" PRIu64 " to %" PRIu64 "):\n",
                v->lines_known ? "live tensors" : "allocated memory", v->steps, v->leaks[0].from_step,
                v->leaks[0].to_step);
    for (size_t i = 0; i < v->n; i++) {
        const struct growth_leak *g = &v->leaks[i];
        fputs("    ", f);
        put_per_step(f, g->per_step);
        fputs(": ", f);
        if (g->line)
            put_step_line(f, g->line);
        else
            fputs(LINES_UNKNOWN, f);
        fprintf(f, "\n        step %" PRIu64 ": ", g->from_step);
        put_bytes(f, g->from_bytes);
        fprintf(f, "; step %" PRIu64 ": ", g->to_step);
        put_bytes(f, g->to_bytes);
        if (g->line) {
            fputs(" in ", f);
            put_count(f, g->line->count, "tensor");
        }
        fputc('\n', f);
    }
    return true;
}

void text_still_reachable(const struct report_ctx *r, const struct growth_verdict *v)
{
    FILE *f = r->out;
    if (v->nreachable == 0)
        return;
    size_t shown = r->top ? r->top : REACHABLE_SHOWN;
    if (v->reachable_at_exit)
        fputs("\nStill reachable at exit (live tensors that did not grow: weights, optimizer\n"
              "state; not leaks):\n", f);
    else
        fprintf(f, "\nStill reachable at step %" PRIu64 " (live tensors that did not grow: weights, optimizer\n"
                   "state; not leaks):\n",
                v->last_step);
    for (size_t i = 0; i < v->nreachable && i < shown; i++) {
        fputs("    ", f);
        put_bytes(f, v->reachable[i]->bytes);
        fputs(" in ", f);
        put_count(f, v->reachable[i]->count, "tensor");
        fputs(": ", f);
        if (v->reachable[i]->line)
            put_step_line(f, v->reachable[i]);
        else
            fputs("(no Python line)", f);
        fputc('\n', f);
    }
    if (v->nreachable > shown)
        fprintf(f, "    ... and %zu more lines\n", v->nreachable - shown);
}

/* r, judging s's steps instead of r's snapshot's. */
static struct report_ctx ctx_of(const struct report_ctx *r, const struct snapshot *s)
{
    struct report_ctx c = *r;
    c.s = s;
    c.v = NULL; /* r's view is of another snapshot */
    return c;
}

void text_growth_diff(const struct report_ctx *r, const struct msnap *m, size_t n)
{
    if (n == 0 || m[n - 1].s.ntorch_steps == 0)
        return;
    struct report_ctx last = ctx_of(r, &m[n - 1].s);
    last.v = &m[n - 1].v;
    struct growth_verdict v;
    growth_judge(&last, &v);
    put_title(r, "LEAKED BY GROWTH");
    fprintf(r->out, "PyTorch's steps as the last snapshot [%zu] carries them:\n", n);
    if (!text_growth_leaks(&last, &v))
        fprintf(r->out, "No leak by growth%s.\n", v.judged ? "" : " (too few steps to judge)");
    growth_verdict_free(&v);
}

void text_growth_rank(const struct report_ctx *r, const struct snapshot *s)
{
    if (s->ntorch_steps == 0)
        return;
    struct report_ctx c = ctx_of(r, s);
    struct growth_verdict v;
    growth_judge(&c, &v);
    for (size_t i = 0; i < v.n; i++) {
        const struct growth_leak *g = &v.leaks[i];
        fputs("    leaked by growth: ", r->out);
        put_per_step(r->out, g->per_step);
        fputs(": ", r->out);
        if (g->line)
            put_step_line(r->out, g->line);
        else
            fputs(LINES_UNKNOWN, r->out);
        fprintf(r->out, ", steps %" PRIu64 " to %" PRIu64 "\n", g->from_step, g->to_step);
    }
    growth_verdict_free(&v);
}
