/* The report's head: which snapshot of which process, then SUMMARY, the
 * headline figures (what is left, what caches hold, each device's peak and
 * fragmentation). */
#include "render/text/summary.h"

#include <inttypes.h>
#include <time.h>

#include "analysis/frag.h"
#include "model/reason.h"
#include "render/report.h"
#include "render/sections.h"
#include "render/text/bad_frees.h"
#include "render/text/growth.h"
#include "render/text/oom.h"
#include "render/text/teardown.h"
#include "render/text/textout.h"
#include "util/fmt.h"

/* One argv word, single-quoted when the shell would need it. */
static void put_word(FILE *f, const struct snap_str *w)
{
    bool plain = w->len > 0;
    for (uint32_t i = 0; i < w->len && plain; i++) {
        unsigned char c = (unsigned char)w->s[i];
        plain = c > 0x20 && c < 0x7f && !strchr("'\"\\$`!*?[]{}()<>|&;#~", c);
    }
    if (plain) {
        put_safe(f, w->s, w->len);
        return;
    }
    fputc('\'', f);
    /* print the spans between single quotes whole, so UTF-8 stays intact */
    uint32_t start = 0;
    for (uint32_t i = 0; i <= w->len; i++) {
        if (i == w->len || w->s[i] == '\'') {
            put_safe(f, w->s + start, i - start);
            if (i < w->len)
                fputs("'\\''", f);
            start = i + 1;
        }
    }
    fputc('\'', f);
}

void text_header(struct report_ctx *r)
{
    FILE *f = r->out;
    const struct snap_process *p = &r->s->proc;
    put_color(r, TC_BOLD);
    fputs("==== gpuleak report ====", f);
    put_color_end(r);
    fputs("\nsnapshot: ", f);
    put_str(f, r->path);
    fprintf(f, "\nprocess:  pid %u, ppid %u, ", p->pid, p->ppid);
    if (p->flags & GL_SNAP_F_NO_RANK)
        fputs("no rank", f); /* its rank field is a default 0, not rank 0 */
    else
        fprintf(f, "rank %u", p->rank);
    fputs(", host ", f);
    put_safe(f, p->host.s, p->host.len);
    fputs("\ncommand: ", f);
    for (uint32_t i = 0; i < p->argc; i++) {
        fputc(' ', f);
        put_word(f, &p->argv[i]);
    }
    fputs("\nexe:      ", f);
    put_safe(f, p->exe.s, p->exe.len);
    fprintf(f, "\ntaken:    %s, ", reason_phrase(p->reason));
    put_secs(f, p->snapshot_mono_ns);
    fprintf(f, " after start (snapshot %" PRIu64 "%s)", p->index,
            p->flags & GL_SNAP_F_FINAL ? ", final" : "");
    time_t t = (time_t)(p->start_unix_ns / 1000000000u);
    struct tm tm;
    char when[64];
    if (p->start_unix_ns && gmtime_r(&t, &tm) &&
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm))
        fprintf(f, "\nstarted:  %s", when);
    fputc('\n', f);
    if (r->s->sampling.mode) {
        put_color(r, TC_YELLOW);
        fputs("sampled:  stacks of a sample of the allocations (GPULEAK_MODE=light, one per ", f);
        put_bytes(f, r->s->sampling.sample_bytes);
        fputs(" allocated\n          on average): totals are exact, bytes by stack are estimates", f);
        put_color_end(r);
        fputc('\n', f);
    }
    for (size_t i = 0; i < r->nwarnings; i++) {
        put_color(r, TC_YELLOW);
        fputs("warning: ", f);
        put_str(f, r->warnings[i]);
        put_color_end(r);
        fputc('\n', f);
    }
}

static const struct frag_dev *frag_of(const struct report_ctx *r, int32_t dev)
{
    for (size_t i = 0; r->fr && i < r->fr->ndev; i++)
        if (r->fr->dev[i].device == dev)
            return &r->fr->dev[i];
    return NULL;
}

static void summary_head(FILE *f, const char *label, uint64_t bytes, uint64_t count,
                         size_t groups, const char *noun)
{
    fprintf(f, "    %-18s", label);
    put_bytes(f, bytes);
    fputs(" in ", f);
    put_count(f, count, noun);
    fputs(" from ", f);
    put_count(f, groups, "stack");
}

static void summary_line(FILE *f, const char *label, uint64_t bytes, uint64_t count,
                         size_t groups, const char *noun)
{
    summary_head(f, label, bytes, count, groups, noun);
    fputc('\n', f);
}

/* Why leaks are no finding: ", below --min-bytes 2,097,152" when every
 * stack is under it, ", 1 stack below --min-bytes ..." when some are.
 * Without it `gpuleak check` said "no errors: leaked 1,048,576 bytes". */
static void put_below_min_bytes(const struct report_ctx *r)
{
    const struct group_list *l = &r->a->leaks;
    size_t below = 0;
    size_t stacks = l->total - l->unsampled_groups; /* as text_summary_findings counts */
    for (size_t i = 0; r->min_bytes && i < l->total; i++)
        below += !group_unsampled(r->s, &l->g[i]) && l->g[i].est_bytes < (double)r->min_bytes;
    if (below == 0)
        return;
    char min[32];
    fmt_commas(min, sizeof min, r->min_bytes);
    fputs(", ", r->out);
    if (below < stacks)
        put_count(r->out, below, "stack");
    fprintf(r->out, "%sbelow --min-bytes %s", below < stacks ? " " : "", min);
}

void text_summary_findings(struct report_ctx *r)
{
    FILE *f = r->out;
    const struct analysis *a = r->a;
    bool at_exit = r->s->proc.reason == GL_REASON_EXIT;
    /* PyTorch's leaks are tensors its cache holds: "leaked: 0 bytes"
     * alone said the opposite of what grew (issue 45) */
    struct growth_verdict gv;
    growth_judge(r, &gv);
    text_growth_summary(r, &gv);
    if (a->leaks.bytes)
        put_color(r, TC_RED);
    /* sampled: the allocations not sampled are no stack (text_leaks) */
    summary_head(f, at_exit ? "leaked:" : "live:", a->leaks.bytes,
                 a->leaks.count, a->leaks.total - a->leaks.unsampled_groups, "allocation");
    put_color_end(r);
    if (a->leaks.unsampled_count) {
        char n[32];
        fmt_commas(n, sizeof n, a->leaks.unsampled_count);
        fprintf(f, ", %s of them not sampled", n);
    }
    put_below_min_bytes(r);
    fputc('\n', f);
    if (a->cached.total)
        summary_line(f, "allocator caches:", a->cached.bytes, a->cached.count,
                     a->cached.total, "allocation");
    if (a->suppressed.total)
        summary_line(f, "suppressed:", a->suppressed.bytes, a->suppressed.count,
                     a->suppressed.total, "allocation");
    if (a->mapped.total)
        summary_line(f, at_exit ? "never released:" : "mapped:", a->mapped.bytes,
                     a->mapped.count, a->mapped.total, "mapping");
    if (a->modules.total)
        summary_line(f, "loaded modules:", a->modules.bytes, a->modules.count, a->modules.total,
                     "module");
    text_reachable_summary(r, &gv);
    growth_verdict_free(&gv);
    text_bad_frees_summary(r);
    text_torn_summary(r);
}

/* The headline figures first: what is left, what caches hold, each device's
 * peak and fragmentation. */
void text_summary(struct report_ctx *r)
{
    FILE *f = r->out;
    const struct analysis *a = r->a;
    put_title(r, "SUMMARY");
    if (section_shown(r, "leaks"))
        text_summary_findings(r);
    text_oom_summary(r);
    for (size_t d = 0; d < a->ndevs; d++) {
        const struct snap_device *dv = a->devs[d].dev;
        fputs("    ", f);
        put_where(f, dv->device);
        fputs(": peak ", f);
        put_human(f, dv->peak_bytes);
        fputs(" at ", f);
        put_secs(f, dv->peak_time_ns);
        fputs(", live ", f);
        put_human(f, dv->live_bytes);
        const struct frag_dev *fd = frag_of(r, dv->device);
        if (section_shown(r, "fragmentation") && fd && fd->addr_count)
            fprintf(f, ", fragmentation %.2f", fd->headline);
        fputc('\n', f);
    }
}
