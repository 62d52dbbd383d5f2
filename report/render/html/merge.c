/* The merge page's "merge" member (gpuleak-report --html OUT merge ...):
 * the ranks side by side, how uneven they are (the largest over the mean,
 * and which rank), and the leaks by site across the ranks, those on some
 * ranks only named with the ranks they are on and not on.  The same
 * figures as the text and JSON merge (analysis/multi/multi.c); at most
 * HT_ROWS ranks and sites are embedded, the imbalance is over all. */
#include "render/html/merge.h"

#include "analysis/oom.h"
#include "model/reason.h"
#include "model/snap_read.h"
#include "model/suppress.h"
#include "render/json/common.h"
#include "render/report.h"
#include "snapshot_format.h"

static void put_rank(struct hw *w, const struct msnap *m, size_t i, const struct merge_result *mr)
{
    const struct snap_process *p = &m->s.proc;
    const struct merge_snap *ms = &mr->snaps[i];
    json_obj(&w->j);
    kv_u(w, "number", i + 1);
    kv_s(w, "path", m->path);
    json_key(&w->j, "rank"); json_rank(&w->j, p);
    kv_u(w, "pid", p->pid);
    kv_sn(w, "host", &p->host);
    kv_sn(w, "exe", &p->exe);
    kv_s(w, "reason", reason_name(p->reason));
    kv_b(w, "final", p->flags & GL_SNAP_F_FINAL);
    kv_u(w, "duration_ns", p->snapshot_mono_ns);
    json_key(&w->j, "devices");
    json_arr(&w->j);
    for (size_t k = 0; k < m->s.ndevices; k++)
        json_i64(&w->j, m->s.devices[k].device);
    json_end_arr(&w->j);
    kv_u(w, "live_bytes", ms->live_bytes);
    kv_u(w, "live_count", ms->live_count);
    kv_u(w, "leaked_bytes", ms->leaked_bytes);
    kv_u(w, "leaked_count", ms->leaked_count);
    kv_u(w, "peak_bytes", ms->peak_bytes);
    kv_i(w, "peak_device", ms->peak_device);
    kv_u(w, "peak_time_ns", ms->peak_time_ns);
    kv_u(w, "invalid_frees", mr->frees.count[i]);
    kv_u(w, "refused_frees", mr->frees.refused_count[i]);
    kv_u(w, "teardown_bytes", mr->torn.bytes[i]);
    kv_u(w, "failed_allocations", oom_failed_count(&m->s));
    json_end_obj(&w->j);
}

/* The figure `what` measures of snapshot i. */
static uint64_t measure(const struct merge_snap *ms, int what)
{
    return what == 0 ? ms->peak_bytes : what == 1 ? ms->live_bytes : ms->leaked_bytes;
}

/* Per figure (peak, live, leaked): the largest, the mean (rounded to a
 * byte), their ratio (null when every rank has 0) and the first snapshot with the largest. */
static void put_imbalance(struct hw *w, const struct msnap *m, size_t n, const struct merge_result *mr)
{
    static const char *const names[] = {"peak_bytes", "live_bytes", "leaked_bytes"};
    json_key(&w->j, "imbalance");
    json_arr(&w->j);
    for (int what = 0; what < 3; what++) {
        uint64_t max = 0;
        size_t at = 0;
        double sum = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t v = measure(&mr->snaps[i], what);
            sum += (double)v;
            if (v > max) {
                max = v;
                at = i;
            }
        }
        double mean = n ? sum / (double)n : 0;
        json_obj(&w->j);
        kv_s(w, "measure", names[what]);
        kv_u(w, "max", max);
        kv_u(w, "mean", (uint64_t)(mean + 0.5)); /* bytes, rounded */
        json_key(&w->j, "ratio");
        if (mean > 0)
            json_double(&w->j, (double)max / mean);
        else
            json_null(&w->j);
        kv_u(w, "snapshot", at);
        json_key(&w->j, "rank"); json_rank(&w->j, &m[at].s.proc);
        kv_u(w, "pid", m[at].s.proc.pid); /* names a process without a rank */
        json_end_obj(&w->j);
    }
    json_end_arr(&w->j);
}

/* The ranks (pids: their pids) of the snapshots a row is not on. */
static void put_absent(struct hw *w, const struct msnap *m, size_t n, const struct mrow *row, bool pids)
{
    json_key(&w->j, pids ? "not_on_pids" : "not_on");
    json_arr(&w->j);
    for (size_t k = 0, c = 0; k < n; k++) {
        if (c < row->present && row->cells[c].snap == k) {
            c++; /* a row's cells are in snapshot order */
            continue;
        }
        if (pids)
            json_u64(&w->j, m[k].s.proc.pid);
        else
            json_rank(&w->j, &m[k].s.proc);
    }
    json_end_arr(&w->j);
}

/* [snapshot index, rank, bytes, allocations, pid] of each rank a row is
 * on, and the ranks it is not on with their pids (not_on_pids): a process
 * with no rank (rank null) is named by its pid, as the text names it. */
static void put_row_ranks(struct hw *w, const struct msnap *m, size_t n, const struct mrow *row)
{
    json_key(&w->j, "on");
    json_arr(&w->j);
    for (size_t c = 0; c < row->present; c++) {
        json_arr(&w->j);
        json_u64(&w->j, row->cells[c].snap);
        json_rank(&w->j, &m[row->cells[c].snap].s.proc);
        json_u64(&w->j, row->cells[c].a);
        json_u64(&w->j, row->cells[c].b);
        json_u64(&w->j, m[row->cells[c].snap].s.proc.pid);
        json_end_arr(&w->j);
    }
    json_end_arr(&w->j);
    put_absent(w, m, n, row, false);
    put_absent(w, m, n, row, true);
}

/* Leaks by site across the ranks (LEAKS BY SITE): largest first. */
static void put_leak_sites(struct hw *w, const struct msnap *m, size_t n, const struct leak_sites *l)
{
    json_key(&w->j, "leak_sites");
    json_arr(&w->j);
    size_t shown = l->n < HT_ROWS ? l->n : HT_ROWS;
    for (size_t i = 0; i < shown; i++) {
        const struct leak_site *ls = &l->v[i];
        json_obj(&w->j);
        kv_s(w, "kind", gl_kind_name(ls->row->kind));
        kv_u(w, "bytes", ls->row->total);
        kv_u(w, "present", ls->row->present);
        kv_b(w, "some_ranks", ls->row->present < n);
        kv_u(w, "min_bytes", ls->min_bytes);
        json_key(&w->j, "min_rank"); json_rank(&w->j, &m[ls->min_snap].s.proc);
        kv_u(w, "min_pid", m[ls->min_snap].s.proc.pid);
        kv_u(w, "max_bytes", ls->max_bytes);
        json_key(&w->j, "max_rank"); json_rank(&w->j, &m[ls->max_snap].s.proc);
        kv_u(w, "max_pid", m[ls->max_snap].s.proc.pid);
        put_row_ranks(w, m, n, ls->row);
        kv_i(w, "stack", hw_stack(w, ls->row->cs));
        json_end_obj(&w->j);
    }
    json_end_arr(&w->j);
    kv_u(w, "leak_sites_total", l->n);
}

/* Stacks with live memory (leaked or not) on only some ranks. */
static void put_some_ranks(struct hw *w, const struct msnap *m, size_t n, const struct mtable *t)
{
    json_key(&w->j, "live_some_ranks");
    json_arr(&w->j);
    size_t shown = t->nshown < HT_ROWS ? t->nshown : HT_ROWS;
    for (size_t i = 0; i < shown; i++) {
        const struct mrow *row = &t->rows[i];
        json_obj(&w->j);
        kv_s(w, "kind", gl_kind_name(row->kind));
        kv_s(w, "rule", row->rule >= 0 ? w->r->sup->rules[row->rule].name : NULL);
        kv_u(w, "bytes", row->total);
        kv_u(w, "present", row->present);
        put_row_ranks(w, m, n, row);
        kv_i(w, "stack", hw_stack(w, row->cs));
        json_end_obj(&w->j);
    }
    json_end_arr(&w->j);
}

void html_merge(struct hw *w, struct msnap *m, size_t n, const struct merge_result *mr)
{
    json_key(&w->j, "merge");
    json_obj(&w->j);
    kv_u(w, "snapshots", n);
    json_key(&w->j, "ranks");
    json_arr(&w->j);
    for (size_t i = 0; i < n && i < HT_ROWS; i++)
        put_rank(w, &m[i], i, mr);
    json_end_arr(&w->j);
    kv_u(w, "largest_peak", mr->largest);
    put_imbalance(w, m, n, mr);
    put_leak_sites(w, m, n, &mr->leaks);
    put_some_ranks(w, m, n, &mr->t);
    json_end_obj(&w->j);
}
