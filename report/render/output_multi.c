/* Text and JSON for diff and merge (multi.c). */
#include "render/multi_out.h"

#include <inttypes.h>
#include <string.h>

#include "analysis/calls.h"
#include "render/json/json.h"
#include "analysis/oom.h"
#include "util/sat.h"
#include "render/text/textout.h"

void json_frames(struct json *j, const struct stackdb *db, uint32_t cs);

static void put_snaps(struct report_ctx *r, struct msnap *m, size_t n)
{
    FILE *f = r->out;
    for (size_t i = 0; i < n; i++) {
        const struct snap_process *p = &m[i].s.proc;
        fprintf(f, "  [%zu] ", i + 1);
        put_str(f, m[i].path);
        fprintf(f, ": pid %u, rank %u, host ", p->pid, p->rank);
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

void text_diff(struct report_ctx *r, struct msnap *m, size_t n, const struct diff_result *d)
{
    FILE *f = r->out;
    tc_on(r, TC_BOLD);
    fprintf(f, "==== gpuleak diff: %zu snapshots ====", n);
    tc_off(r);
    fputc('\n', f);
    put_snaps(r, m, n);
    fprintf(f, "same process: %s\n", d->same_process ? "yes" : "no (different runs)");
    for (size_t i = 0; i < r->nwarnings; i++) {
        fputs("warning: ", f);
        put_str(f, r->warnings[i]);
        fputc('\n', f);
    }
    text_diff_devices(r, &d->devs);
    t_title(r, "CHANGES BY STACK");
    if (d->t.nshown == 0)
        fputs("No change in live memory between the snapshots.\n", f);
    for (size_t i = 0; i < d->t.nshown; i++) {
        const struct mrow *row = &d->t.rows[i];
        if (i)
            fputc('\n', f);
        tc_on(r, row->shrank ? TC_GREEN : TC_RED);
        fputs(row->shrank ? "-" : "+", f);
        put_bytes(f, row->growth);
        tc_off(r);
        fputs(": ", f);
        put_kind(f, row->kind);
        fputs(" memory on ", f);
        put_where(f, row->device);
        put_rule(r, row->rule);
        if (row->monotonic && row->rule < 0) {
            fputs(", ", f);
            tc_on(r, TC_RED);
            fputs("suspected leak (monotonic growth)", f);
            tc_off(r);
        }
        const uint64_t *bytes, *count;
        mt_expand(&d->t, row, &bytes, &count);
        fputs("\n    live bytes:  ", f);
        put_series(f, bytes, n, true);
        fputs("\n    allocations: ", f);
        put_series(f, count, n, false);
        fputc('\n', f);
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
    text_frees_diff(r, &d->frees, r->top);
    text_torn_diff(r, &d->torn, r->top);
}

static void text_fresh(struct report_ctx *r, const struct diff_result *d)
{
    FILE *f = r->out;
    t_title(r, "ALLOCATED AFTER THE FIRST SNAPSHOT, STILL LIVE AT THE LAST");
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

static void json_snaps(struct json *j, struct msnap *m, size_t n)
{
    json_key(j, "snapshots");
    json_arr(j);
    for (size_t i = 0; i < n; i++) {
        const struct snap_process *p = &m[i].s.proc;
        json_obj(j);
        json_key(j, "path"); json_str(j, m[i].path);
        json_key(j, "pid"); json_u64(j, p->pid);
        json_key(j, "rank"); json_u64(j, p->rank);
        json_key(j, "host"); json_strn(j, p->host.s, p->host.len);
        json_key(j, "reason"); json_str(j, reason_name(p->reason));
        json_key(j, "index"); json_u64(j, p->index);
        json_key(j, "start_unix_ns"); json_u64(j, p->start_unix_ns);
        json_key(j, "duration_ns"); json_u64(j, p->snapshot_mono_ns);
        json_end_obj(j);
    }
    json_end_arr(j);
}

static void json_head(struct report_ctx *r, struct json *j, const char *mode)
{
    json_obj(j);
    json_key(j, "format"); json_str(j, "gpuleak-report");
    json_key(j, "schema_version"); json_u64(j, 2);
    json_key(j, "mode"); json_str(j, mode);
    (void)r;
}

static void json_tail(struct report_ctx *r, struct json *j)
{
    json_key(j, "warnings");
    json_arr(j);
    for (size_t i = 0; i < r->nwarnings; i++)
        json_str(j, r->warnings[i]);
    json_end_arr(j);
    json_end_obj(j);
}

static void json_rule(struct report_ctx *r, struct json *j, int32_t rule)
{
    json_key(j, "rule");
    json_str(j, rule >= 0 ? r->sup->rules[rule].name : NULL);
}

void json_diff(struct report_ctx *r, struct msnap *m, size_t n, const struct diff_result *d)
{
    struct json j;
    json_init(&j, r->out);
    json_head(r, &j, "diff");
    json_snaps(&j, m, n);
    json_key(&j, "same_process"); json_bool(&j, d->same_process);
    json_diff_devices(&j, &d->devs);
    json_key(&j, "stacks");
    json_arr(&j);
    for (size_t i = 0; i < d->t.nshown; i++) {
        const struct mrow *row = &d->t.rows[i];
        json_obj(&j);
        json_key(&j, "kind"); json_str(&j, gl_kind_name(row->kind));
        json_key(&j, "device"); json_i64(&j, row->device);
        json_rule(r, &j, row->rule);
        const uint64_t *bytes, *count;
        mt_expand(&d->t, row, &bytes, &count);
        json_key(&j, "bytes"); json_u64_inline(&j, bytes, n);
        json_key(&j, "count"); json_u64_inline(&j, count, n);
        json_key(&j, "growth"); json_i64(&j, row->shrank ? -(int64_t)(row->growth > INT64_MAX ? INT64_MAX : row->growth)
                                                         : (int64_t)(row->growth > INT64_MAX ? INT64_MAX : row->growth));
        json_key(&j, "monotonic"); json_bool(&j, row->monotonic);
        json_key(&j, "suspected_leak"); json_bool(&j, row->monotonic && row->rule < 0);
        json_frames(&j, r->db, row->cs);
        json_end_obj(&j);
    }
    json_end_arr(&j);
    json_key(&j, "new_since_first");
    if (!d->same_process) {
        json_null(&j);
    } else {
        json_obj(&j);
        json_key(&j, "bytes"); json_u64(&j, d->fresh_bytes);
        json_key(&j, "count"); json_u64(&j, d->fresh_count);
        json_key(&j, "groups");
        json_arr(&j);
        for (size_t i = 0; i < d->nfresh_shown; i++) {
            const struct newgroup *g = &d->fresh[i];
            json_obj(&j);
            json_key(&j, "bytes"); json_u64(&j, g->bytes);
            json_key(&j, "count"); json_u64(&j, g->count);
            json_key(&j, "kind"); json_str(&j, gl_kind_name(g->kind));
            json_key(&j, "device"); json_i64(&j, g->device);
            json_rule(r, &j, g->rule);
            json_frames(&j, r->db, g->cs);
            json_end_obj(&j);
        }
        json_end_arr(&j);
        json_end_obj(&j);
    }
    json_calls_between(r, &j, &m[0].v, &m[n - 1].v, d->same_process);
    json_frees_multi(r, &j, &d->frees);
    json_torn_multi(r, &j, &d->torn);
    json_tail(r, &j);
}

/* Per-host and per-(host, device) totals, computed on the fly: few rows. */
struct agg {
    const char *host;
    int32_t device; /* -2 for a host total */
    uint64_t live, peak_sum, peak_max;
    size_t snaps;
    char ranks[256];
};

static size_t aggregate(struct msnap *m, size_t n, struct agg *out, size_t max, bool by_dev)
{
    size_t na = 0;
    for (size_t i = 0; i < n; i++) {
        const struct snapshot *s = &m[i].s;
        size_t nd = by_dev ? s->ndevices : 1;
        for (size_t k = 0; k < nd; k++) {
            int32_t dev = by_dev ? s->devices[k].device : -2;
            size_t a = 0;
            while (a < na && !(strcmp(out[a].host, s->proc.host.s) == 0 && out[a].device == dev))
                a++;
            if (a == na) {
                if (na == max)
                    continue;
                memset(&out[na], 0, sizeof out[na]);
                out[na].host = s->proc.host.s;
                out[na].device = dev;
                na++;
            }
            struct agg *g = &out[a];
            uint64_t live = 0, peak = 0;
            if (by_dev) {
                live = s->devices[k].live_bytes;
                peak = s->devices[k].peak_bytes;
            } else {
                for (size_t q = 0; q < s->nallocs; q++)
                    live = sat_add(live, s->allocs[q].size);
                for (size_t q = 0; q < s->ndevices; q++)
                    peak = sat_add(peak, s->devices[q].peak_bytes);
            }
            g->live = sat_add(g->live, live);
            g->peak_sum = sat_add(g->peak_sum, peak);
            if (peak > g->peak_max)
                g->peak_max = peak;
            size_t len = strlen(g->ranks);
            if (len + 16 < sizeof g->ranks)
                snprintf(g->ranks + len, sizeof g->ranks - len, "%s%u", g->snaps ? "," : "",
                         s->proc.rank);
            g->snaps++;
        }
    }
    return na;
}

#define MAX_AGG 1024

void text_merge(struct report_ctx *r, struct msnap *m, size_t n, const struct merge_result *mr)
{
    FILE *f = r->out;
    static struct agg ag[MAX_AGG];
    tc_on(r, TC_BOLD);
    fprintf(f, "==== gpuleak merge: %zu snapshots ====", n);
    tc_off(r);
    fputc('\n', f);
    for (size_t i = 0; i < r->nwarnings; i++) {
        fputs("warning: ", f);
        put_str(f, r->warnings[i]);
        fputc('\n', f);
    }
    t_title(r, "BY RANK");
    for (size_t i = 0; i < n; i++) {
        const struct snap_process *p = &m[i].s.proc;
        const struct merge_snap *ms = &mr->snaps[i];
        fprintf(f, "rank %u (pid %u, host ", p->rank, p->pid);
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
            tc_on(r, TC_RED);
            put_count(f, failed, "failed allocation");
            tc_off(r);
        }
        fputc('\n', f);
    }
    t_title(r, "BY HOST");
    size_t na = aggregate(m, n, ag, MAX_AGG, false);
    for (size_t i = 0; i < na; i++) {
        put_str(f, ag[i].host);
        fprintf(f, ": %zu rank%s (%s), live ", ag[i].snaps, ag[i].snaps == 1 ? "" : "s", ag[i].ranks);
        put_bytes(f, ag[i].live);
        fputs(", peaks summed ", f);
        put_human(f, ag[i].peak_sum);
        fputc('\n', f);
    }
    t_title(r, "BY DEVICE");
    na = aggregate(m, n, ag, MAX_AGG, true);
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
    t_title(r, "LARGEST PEAK");
    const struct merge_snap *big = &mr->snaps[mr->largest];
    const struct snap_process *bp = &m[mr->largest].s.proc;
    fprintf(f, "rank %u (pid %u, host ", bp->rank, bp->pid);
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
    t_title(r, "STACKS ON ONLY SOME RANKS");
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
            fprintf(f, " rank %u (", m[row->cells[c].snap].s.proc.rank);
            put_human(f, row->cells[c].a);
            fputc(')', f);
        }
        fputs("\n    not on:", f);
        put_absent_ranks(f, m, n, row);
        fputc('\n', f);
        put_cs(r, "    ", row->cs);
    }
    text_frees_merge(r, m, &mr->frees, r->top);
    text_torn_merge(r, m, &mr->torn, r->top);
    text_calls_merge(r, m, n, r->top ? r->top : 5);
}

void json_merge(struct report_ctx *r, struct msnap *m, size_t n, const struct merge_result *mr)
{
    static struct agg ag[MAX_AGG];
    struct json j;
    json_init(&j, r->out);
    json_head(r, &j, "merge");
    json_snaps(&j, m, n);
    json_key(&j, "ranks");
    json_arr(&j);
    for (size_t i = 0; i < n; i++) {
        const struct merge_snap *ms = &mr->snaps[i];
        const struct snapshot *s = &m[i].s;
        json_obj(&j);
        json_key(&j, "snapshot"); json_u64(&j, i);
        json_key(&j, "rank"); json_u64(&j, s->proc.rank);
        json_key(&j, "host"); json_strn(&j, s->proc.host.s, s->proc.host.len);
        json_key(&j, "pid"); json_u64(&j, s->proc.pid);
        json_key(&j, "live_bytes"); json_u64(&j, ms->live_bytes);
        json_key(&j, "live_count"); json_u64(&j, ms->live_count);
        json_key(&j, "leaked_bytes"); json_u64(&j, ms->leaked_bytes);
        json_key(&j, "leaked_count"); json_u64(&j, ms->leaked_count);
        json_key(&j, "peak_bytes"); json_u64(&j, ms->peak_bytes);
        json_key(&j, "peak_device"); json_i64(&j, ms->peak_device);
        json_key(&j, "invalid_frees"); json_u64(&j, mr->frees.count[i]);
        json_key(&j, "refused_frees"); json_u64(&j, mr->frees.refused_count[i]);
        json_key(&j, "teardown_bytes"); json_u64(&j, mr->torn.bytes[i]);
        json_key(&j, "teardown_leaked_bytes"); json_u64(&j, mr->torn.leaked_bytes[i]);
        json_key(&j, "failed_count"); json_u64(&j, oom_failed_count(s));
        json_key(&j, "devices");
        json_arr(&j);
        for (size_t k = 0; k < s->ndevices; k++) {
            json_obj(&j);
            json_key(&j, "device"); json_i64(&j, s->devices[k].device);
            json_key(&j, "live_bytes"); json_u64(&j, s->devices[k].live_bytes);
            json_key(&j, "peak_bytes"); json_u64(&j, s->devices[k].peak_bytes);
            json_end_obj(&j);
        }
        json_end_arr(&j);
        json_end_obj(&j);
    }
    json_end_arr(&j);
    for (int by_dev = 0; by_dev < 2; by_dev++) {
        json_key(&j, by_dev ? "devices" : "hosts");
        size_t na = aggregate(m, n, ag, MAX_AGG, by_dev);
        json_arr(&j);
        for (size_t i = 0; i < na; i++) {
            json_obj(&j);
            json_key(&j, "host"); json_str(&j, ag[i].host);
            if (by_dev) {
                json_key(&j, "device");
                json_i64(&j, ag[i].device);
            }
            json_key(&j, "snapshots"); json_u64(&j, ag[i].snaps);
            json_key(&j, "live_bytes"); json_u64(&j, ag[i].live);
            json_key(&j, "peak_bytes_sum"); json_u64(&j, ag[i].peak_sum);
            json_key(&j, "peak_bytes_max"); json_u64(&j, ag[i].peak_max);
            json_end_obj(&j);
        }
        json_end_arr(&j);
    }
    const struct merge_snap *big = &mr->snaps[mr->largest];
    json_key(&j, "largest_peak");
    json_obj(&j);
    json_key(&j, "snapshot"); json_u64(&j, mr->largest);
    json_key(&j, "rank"); json_u64(&j, m[mr->largest].s.proc.rank);
    json_key(&j, "host"); json_str(&j, m[mr->largest].s.proc.host.s);
    json_key(&j, "device"); json_i64(&j, big->peak_device);
    json_key(&j, "peak_bytes"); json_u64(&j, big->peak_bytes);
    json_key(&j, "peak_time_ns"); json_u64(&j, big->peak_time_ns);
    json_end_obj(&j);
    json_leaks_merge(r, &j, m, n, &mr->t, &mr->leaks);
    json_key(&j, "partial_stacks");
    json_arr(&j);
    for (size_t i = 0; i < mr->t.nshown; i++) {
        const struct mrow *row = &mr->t.rows[i];
        json_obj(&j);
        json_key(&j, "kind"); json_str(&j, gl_kind_name(row->kind));
        json_rule(r, &j, row->rule);
        const uint64_t *bytes, *count;
        mt_expand(&mr->t, row, &bytes, &count);
        json_key(&j, "bytes"); json_u64_inline(&j, bytes, n);
        json_key(&j, "count"); json_u64_inline(&j, count, n);
        json_key(&j, "present"); json_u64(&j, row->present);
        json_key(&j, "total_bytes"); json_u64(&j, row->total);
        json_frames(&j, r->db, row->cs);
        json_end_obj(&j);
    }
    json_end_arr(&j);
    json_frees_multi(r, &j, &mr->frees);
    json_torn_multi(r, &j, &mr->torn);
    json_calls_merge(r, &j, m, n);
    json_tail(r, &j);
}
