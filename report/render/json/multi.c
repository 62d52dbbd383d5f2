/* The JSON reports of diff and merge (analysis/multi/multi.c). */
#include "render/json/multi.h"

#include <string.h>

#include "analysis/calls.h"
#include "analysis/multi/rate.h"
#include "analysis/oom.h"
#include "model/reason.h"
#include "render/json/bad_frees_multi.h"
#include "render/json/calls.h"
#include "render/json/common.h"
#include "render/json/torch.h"
#include "render/json/diff_devices.h"
#include "render/json/leaks_merge.h"
#include "render/json/teardown_multi.h"
#include "render/report.h"
#include "snapshot_format.h"
#include "util/sat.h"

static void json_snaps(struct json *j, struct msnap *m, size_t n)
{
    json_key(j, "snapshots");
    json_arr(j);
    for (size_t i = 0; i < n; i++) {
        const struct snap_process *p = &m[i].s.proc;
        json_obj(j);
        json_key(j, "path"); json_str(j, m[i].path);
        json_key(j, "pid"); json_u64(j, p->pid);
        json_key(j, "rank"); json_rank(j, p);
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

/* "rate_elapsed_ns": the time the rows' rates per hour are over, and
 * "no_rate": why they have none (null when they have). */
static void json_series_clock(struct json *j, const struct series_clock *c)
{
    json_key(j, "rate_elapsed_ns");
    if (c->state == SERIES_CLOCK_KNOWN)
        json_u64(j, c->elapsed_ns);
    else
        json_null(j);
    json_key(j, "no_rate"); json_str(j, series_clock_why_not(c->state));
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
    json_key(&j, "same_program"); json_bool(&j, d->same_program);
    struct series_clock clock = series_clock_of(m, n);
    json_series_clock(&j, &clock);
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
        json_key(&j, "suspected_leak"); json_bool(&j, row->suspected);
        json_key(&j, "cache_growth"); json_bool(&j, row->cache_growth);
        json_key(&j, "torch_segments"); json_bool(&j, !row->beyond_torch);
        json_per_hour(&j, mrow_per_hour(&clock, row));
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
    json_bad_frees_multi(r, &j, &d->frees);
    json_torn_multi(r, &j, &d->torn);
    json_torch_diff(r, &j, m, n);
    json_leaks_by_growth_diff(r, &j, m, n);
    json_tail(r, &j);
}

void json_merge(struct report_ctx *r, struct msnap *m, size_t n, const struct merge_result *mr)
{
    static struct merge_agg ag[MERGE_MAX_AGG];
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
        json_key(&j, "rank"); json_rank(&j, &s->proc);
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
        json_rank_leaks_by_growth(r, &j, s);
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
        size_t na = merge_aggregate(m, n, ag, MERGE_MAX_AGG, by_dev);
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
    json_key(&j, "rank"); json_rank(&j, &m[mr->largest].s.proc);
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
    json_bad_frees_multi(r, &j, &mr->frees);
    json_torn_multi(r, &j, &mr->torn);
    json_calls_merge(r, &j, m, n);
    json_tail(r, &j);
}
