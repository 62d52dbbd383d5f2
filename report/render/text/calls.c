/* The ALLOCATION CALLS section of the text report (report, diff, merge). */
#include "render/text/calls.h"

#include <inttypes.h>

#include "analysis/analyze.h"
#include "analysis/multi/cells.h"
#include "render/report.h"
#include "render/text/textout.h"
#include "snapshot_format.h"
#include "util/fmt.h"
#include "util/sat.h"

/* A site's first line: its calls, or in a sampled snapshot what its
 * sampled calls stand for (sample_scale), then what was seen. */
static void site_what(struct report_ctx *r, const struct call_sites *c, const struct call_site *s)
{
    FILE *f = r->out;
    char freed[32];
    put_color(r, TC_BOLD);
    if (c->sampled && s->cs != 0)
        fputc('~', f);
    put_count(f, c->sampled && s->cs != 0 ? est_round(s->est_allocs) : s->allocs, "call");
    put_color_end(r);
    fputs(" (", f);
    put_api(f, s->api);
    fputs(", ", f);
    put_kind(f, s->kind);
    if (c->sampled && s->cs != 0) {
        fmt_commas(freed, sizeof freed, est_round(s->est_frees));
        fprintf(f, "), ~%s freed, ~", freed);
        put_bytes(f, est_round(s->est_bytes));
        fputs(" in all (estimated from ", f);
        put_count(f, s->allocs, "sampled call");
        fmt_commas(freed, sizeof freed, s->frees);
        fprintf(f, ", %s freed, ", freed);
        put_bytes(f, s->bytes);
        fputs(")\n", f);
        return;
    }
    fmt_commas(freed, sizeof freed, s->frees);
    fprintf(f, "), %s freed, ", freed);
    put_bytes(f, s->bytes);
    fputs(c->sampled ? " in all, not sampled: in the estimates above\n" : " in all\n", f);
}

/* m: merge's snapshots, for each site's line of ranks; NULL otherwise. */
static void text_sites(struct report_ctx *r, const struct call_sites *c, size_t top, struct msnap *m)
{
    FILE *f = r->out;
    char freed[32];
    put_count(f, c->allocs, "call");
    fmt_commas(freed, sizeof freed, c->frees);
    fprintf(f, ", %s freed, from ", freed);
    put_count(f, c->n, "stack");
    fputs(", ", f);
    put_bytes(f, c->bytes);
    fputs(" made in all\n", f);
    size_t shown = top && top < c->n ? top : c->n;
    for (size_t i = 0; i < shown; i++) {
        const struct call_site *s = &c->site[i];
        fputc('\n', f);
        site_what(r, c, s);
        if (m != NULL && s->cells != NULL) {
            fprintf(f, "    on %zu of %zu ranks:", s->present, c->nsnaps);
            for (size_t k = 0; k < s->present; k++)
                if (s->cells[k].a) {
                    fmt_commas(freed, sizeof freed, s->cells[k].a);
                    fprintf(f, " %s (%s)", rank_name(&m[s->cells[k].snap].s.proc), freed);
                }
            fputc('\n', f);
        }
        put_cs(r, "    ", s->cs);
    }
    if (shown < c->n) {
        uint64_t calls = 0;
        for (size_t i = shown; i < c->n; i++)
            calls = sat_add(calls, c->site[i].allocs);
        fputs("\n(", f);
        put_count(f, c->n - shown, "more stack");
        fputs(" with ", f);
        put_count(f, calls, "call");
        fputs(" not shown; --top N shows more)\n", f);
    }
}

void text_calls(struct report_ctx *r, size_t top)
{
    struct call_sites c;
    if (calls_build(r->v, &c) != 0 || c.n == 0) {
        calls_free(&c);
        return;
    }
    put_title(r, "ALLOCATION CALLS");
    fputs("Every call that made memory since tracking started, by call stack, most\n"
          "calls first.  CUDA's allocation calls are slow and cudaFree waits for the\n"
          "device, so a site that allocates and frees in a loop costs time even when\n"
          "it leaks nothing.\n", r->out);
    if (r->s->sampling.mode)
        fputs("Sampled (GPULEAK_MODE=light): a stack's calls are estimates (~) from its\n"
              "sampled calls, ranked by them; the first line's totals are exact.\n", r->out);
    text_sites(r, &c, top, NULL);
    calls_free(&c);
}

void text_calls_between(struct report_ctx *r, const struct snapview *first, const struct snapview *last,
                        bool same_process, size_t top)
{
    FILE *f = r->out;
    put_title(r, "ALLOCATION CALLS BETWEEN THE FIRST AND LAST SNAPSHOTS");
    if (!same_process) {
        fputs("Not applicable: the first and last snapshots come from different processes.\n", f);
        return;
    }
    struct call_sites c;
    if (calls_between(first, last, &c) != 0 || c.n == 0) {
        fputs(first->s->ncalls || last->s->ncalls ? "None.\n" : "Not recorded in these snapshots.\n", f);
        calls_free(&c);
        return;
    }
    fputs("The calls that made memory in that time, by call stack, most calls first:\n", f);
    text_sites(r, &c, top, NULL);
    calls_free(&c);
}

void text_calls_merge(struct report_ctx *r, struct msnap *m, size_t n, size_t top)
{
    struct call_sites c;
    if (calls_merge(m, n, &c) != 0 || c.n == 0) {
        calls_free(&c);
        return;
    }
    put_title(r, "ALLOCATION CALLS");
    fputs("Every call that made memory since tracking started, by call stack over all\n"
          "ranks, most calls first.\n", r->out);
    text_sites(r, &c, top, m);
    calls_free(&c);
}
