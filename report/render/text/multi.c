/* The text reports of diff and merge (analysis/multi/multi.c). */
#include "render/text/multi.h"

#include <inttypes.h>
#include <string.h>

#include "analysis/calls.h"
#include "analysis/multi/rate.h"
#include "analysis/oom.h"
#include "model/reason.h"
#include "render/report.h"
#include "render/text/bad_frees_multi.h"
#include "render/text/calls.h"
#include "render/text/diff_devices.h"
#include "render/text/leaks_merge.h"
#include "render/text/sites_multi.h"
#include "render/text/teardown_multi.h"
#include "render/text/textout.h"
#include "render/text/torch.h"
#include "render/text/growth.h"
#include "snapshot_format.h"
#include "util/sat.h"

/* "rank R (pid P, host " or "no rank (pid P, host ": a process in merge's
 * per-rank views (rank_name). */
static void put_process_head(FILE *f, const struct snap_process *p)
{
    if (p->flags & GL_SNAP_F_NO_RANK)
        fprintf(f, "no rank (pid %u, host ", p->pid);
    else
        fprintf(f, "rank %u (pid %u, host ", p->rank, p->pid);
}

static void put_snaps(struct report_ctx *r, struct msnap *m, size_t n)
{
    FILE *f = r->out;
    for (size_t i = 0; i < n; i++) {
        const struct snap_process *p = &m[i].s.proc;
        fprintf(f, "  [%zu] ", i + 1);
        put_str(f, m[i].path);
        fprintf(f, ": pid %u, %s, host ", p->pid, p->flags & GL_SNAP_F_NO_RANK ? "no rank" : rank_name(p));
        put_safe(f, p->host.s, p->host.len);
        fprintf(f, ", %s, ", reason_phrase(p->reason));
        put_secs(f, p->snapshot_mono_ns);
        fputs(" after start\n", f);
    }
}

static void put_rule(struct report_ctx *r, int32_t rule)
{
    if (rule < 0)
        return;
    fputs(", held by ", r->out);
    put_str(r->out, r->sup->rules[rule].name);
}

static void text_fresh(struct report_ctx *r, const struct diff_result *d);

/* Once, under the head: what the rates per hour of the rows are over, or
 * why there are none. */
static void put_series_clock(FILE *f, const struct series_clock *c)
{
    const char *why = series_clock_why_not(c->state);
    if (why) {
        fprintf(f, "growth per hour: none (%s)\n", why);
        return;
    }
    fputs("growth per hour: over the ", f);
    put_secs(f, c->elapsed_ns);
    fputs(" from the first snapshot to the last\n", f);
}

void text_diff(struct report_ctx *r, struct msnap *m, size_t n, const struct diff_result *d)
{
    FILE *f = r->out;
    put_color(r, TC_BOLD);
    fprintf(f, "==== gpuleak diff: %zu snapshots ====", n);
    put_color_end(r);
    fputc('\n', f);
    put_snaps(r, m, n);
    fprintf(f, "same process: %s\n", d->same_process ? "yes" : "no (different runs)");
    struct series_clock clock = series_clock_of(m, n);
    put_series_clock(f, &clock);
    for (size_t i = 0; i < r->nwarnings; i++) {
        fputs("warning: ", f);
        put_str(f, r->warnings[i]);
        fputc('\n', f);
    }
    text_diff_devices(r, &d->devs);
    /* What grew inside PyTorch's cache first, by the lines that keep the
     * tensors: the cudaMalloc stacks below only say which request
     * overflowed the cache (issue 35). */
    text_torch_diff(r, m, n);
    text_growth_diff(r, m, n);
    put_title(r, "CHANGES BY STACK");
    if (d->t.nshown == 0)
        fputs("No change in live memory between the snapshots.\n", f);
    for (size_t i = 0; i < d->t.nshown; i++) {
        const struct mrow *row = &d->t.rows[i];
        if (i)
            fputc('\n', f);
        put_color(r, row->shrank ? TC_GREEN : TC_RED);
        fputs(row->shrank ? "-" : "+", f);
        /* a diff is of one process: sampled alike (multi.c scales its rows) */
        if (m[n - 1].s.sampling.mode && row->cs != 0)
            fputc('~', f);
        put_bytes(f, row->growth);
        put_color_end(r);
        fputs(": ", f);
        put_kind(f, row->kind);
        fputs(" memory on ", f);
        put_where(f, row->device);
        put_rule(r, row->rule);
        if (!row->beyond_torch)
            fputs(", PyTorch's cache segments (their tensors are above, by line; this stack"
                  " only made the cache grow)", f);
        if (row->suspected) {
            fputs(", ", f);
            put_color(r, TC_RED);
            fputs(row->cache_growth ? "suspected leak (the allocator cache grew at every step)"
                                    : "suspected leak (monotonic growth)", f);
            put_color_end(r);
        }
        const uint64_t *bytes, *count;
        mt_expand(&d->t, row, &bytes, &count);
        fputs("\n    live bytes:  ", f);
        text_sites_series(f, bytes, n, true);
        fputs("\n    allocations: ", f);
        text_sites_series(f, count, n, false);
        fputc('\n', f);
        uint64_t per_hour = mrow_per_hour(&clock, row);
        if (per_hour) {
            fputs("    rate:        ", f);
            put_per_hour(f, per_hour);
            fputc('\n', f);
        }
        put_cs(r, "    ", row->cs);
    }
    size_t changed = 0;
    for (size_t i = d->t.nshown; i < d->t.n; i++)
        changed += d->t.rows[i].changed;
    if (changed)
        fprintf(f, "\n(%zu more changed stack%s not shown: see --top / --min-bytes)\n", changed,
                changed == 1 ? "" : "s");
    text_fresh(r, d);
    text_calls_between(r, &m[0].v, &m[n - 1].v, d->same_process, r->top ? r->top : 5);
    text_bad_frees_diff(r, &d->frees, r->top);
    text_torn_diff(r, &d->torn, r->top);
}

static void text_fresh(struct report_ctx *r, const struct diff_result *d)
{
    FILE *f = r->out;
    put_title(r, "ALLOCATED AFTER THE FIRST SNAPSHOT, STILL LIVE AT THE LAST");
    if (!d->same_process) {
        fputs("Not applicable: the first and last snapshots come from different processes.\n", f);
        return;
    }
    if (d->nfresh == 0) {
        fputs("None.\n", f);
        return;
    }
    fputs("total: ", f);
    put_bytes(f, d->fresh_bytes);
    fputs(" in ", f);
    put_count(f, d->fresh_count, "allocation");
    fputc('\n', f);
    for (size_t i = 0; i < d->nfresh_shown; i++) {
        const struct newgroup *g = &d->fresh[i];
        fputc('\n', f);
        put_amount(r, TC_BOLD, g->bytes, g->count, "allocation");
        put_kind_where(f, g->kind, g->device);
        put_rule(r, g->rule);
        fputc('\n', f);
        put_cs(r, "    ", g->cs);
    }
}

void text_merge(struct report_ctx *r, struct msnap *m, size_t n, const struct merge_result *mr)
{
    FILE *f = r->out;
    static struct merge_agg ag[MERGE_MAX_AGG];
    put_color(r, TC_BOLD);
    fprintf(f, "==== gpuleak merge: %zu snapshots ====", n);
    put_color_end(r);
    fputc('\n', f);
    for (size_t i = 0; i < r->nwarnings; i++) {
        fputs("warning: ", f);
        put_str(f, r->warnings[i]);
        fputc('\n', f);
    }
    put_title(r, "BY RANK");
    for (size_t i = 0; i < n; i++) {
        const struct snap_process *p = &m[i].s.proc;
        const struct merge_snap *ms = &mr->snaps[i];
        put_process_head(f, p);
        put_safe(f, p->host.s, p->host.len);
        fputs(", ", f);
        put_str(f, m[i].path);
        fputs("): live ", f);
        put_bytes(f, ms->live_bytes);
        fputs(" (outside caches and suppressions ", f);
        put_human(f, ms->leaked_bytes);
        fputs("), peak ", f);
        put_human(f, ms->peak_bytes);
        if (ms->peak_device != -2) {
            fputs(" on ", f);
            put_where(f, ms->peak_device);
        }
        if (mr->frees.count[i]) {
            fputs(", ", f);
            put_count(f, mr->frees.count[i], "invalid free");
            fprintf(f, " (%" PRIu64 " refused)", mr->frees.refused_count[i]);
        }
        if (mr->torn.count[i]) {
            fputs(", until teardown ", f);
            put_human(f, mr->torn.bytes[i]);
        }
        uint64_t failed = oom_failed_count(&m[i].s);
        if (failed) {
            fputs(", ", f);
            put_color(r, TC_RED);
            put_count(f, failed, "failed allocation");
            put_color_end(r);
        }
        fputc('\n', f);
        text_growth_rank(r, &m[i].s);
    }
    put_title(r, "BY HOST");
    size_t na = merge_aggregate(m, n, ag, MERGE_MAX_AGG, false);
    for (size_t i = 0; i < na; i++) {
        put_str(f, ag[i].host);
        fprintf(f, ": %zu rank%s (%s), live ", ag[i].snaps, ag[i].snaps == 1 ? "" : "s", ag[i].ranks);
        put_bytes(f, ag[i].live);
        fputs(", peaks summed ", f);
        put_human(f, ag[i].peak_sum);
        fputc('\n', f);
    }
    put_title(r, "BY DEVICE");
    na = merge_aggregate(m, n, ag, MERGE_MAX_AGG, true);
    for (size_t i = 0; i < na; i++) {
        put_str(f, ag[i].host);
        fputc(' ', f);
        put_where(f, ag[i].device);
        fprintf(f, ": rank%s %s, live ", ag[i].snaps == 1 ? "" : "s", ag[i].ranks);
        put_bytes(f, ag[i].live);
        fputs(", largest peak ", f);
        put_human(f, ag[i].peak_max);
        fputc('\n', f);
    }
    put_title(r, "LARGEST PEAK");
    const struct merge_snap *big = &mr->snaps[mr->largest];
    const struct snap_process *bp = &m[mr->largest].s.proc;
    put_process_head(f, bp);
    put_safe(f, bp->host.s, bp->host.len);
    fputs("): ", f);
    put_bytes(f, big->peak_bytes);
    if (big->peak_device != -2) {
        fputs(" on ", f);
        put_where(f, big->peak_device);
    }
    fputs(" at ", f);
    put_secs(f, big->peak_time_ns);
    fputc('\n', f);
    text_leaks_merge(r, m, n, &mr->t, &mr->leaks, r->top);
    put_title(r, "STACKS ON ONLY SOME RANKS");
    if (mr->t.nshown == 0)
        fputs("None: every stack with live memory is live on every rank.\n", f);
    for (size_t i = 0; i < mr->t.nshown; i++) {
        const struct mrow *row = &mr->t.rows[i];
        if (i)
            fputc('\n', f);
        put_bytes(f, row->total);
        fputs(" of ", f);
        put_kind(f, row->kind);
        fputs(" memory", f);
        put_rule(r, row->rule);
        fprintf(f, ", live on %zu of %zu ranks\n    on:", row->present, n);
        for (size_t c = 0; c < row->present; c++) {
            fprintf(f, " %s (", rank_name(&m[row->cells[c].snap].s.proc));
            put_human(f, row->cells[c].a);
            fputc(')', f);
        }
        fputs("\n    not on:", f);
        text_leaks_merge_absent(f, m, n, row);
        fputc('\n', f);
        put_cs(r, "    ", row->cs);
    }
    text_bad_frees_merge(r, m, &mr->frees, r->top);
    text_torn_merge(r, m, &mr->torn, r->top);
    text_calls_merge(r, m, n, r->top ? r->top : 5);
}
