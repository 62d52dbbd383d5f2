/* The page's "growth" member (several snapshots): growth per stack and
 * per device across at most HG_COLS snapshot columns. */
#include "render/html/growth.h"
#include "render/html/torch.h"
#include "render/json/common.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analyze.h"
#include "analysis/bad_free_block.h"
#include "analysis/bad_frees.h"
#include "analysis/calls.h"
#include "analysis/frag.h"
#include "analysis/history.h"
#include "analysis/multi/rate.h"
#include "analysis/oom.h"
#include "analysis/teardown.h"
#include "model/snap_read.h"
#include "model/stackdb.h"
#include "model/symbolize.h"
#include "render/report.h"
#include "util/radix.h"
#include "util/sat.h"
#include "util/sort.h"
#include "util/xalloc.h"

/* The snapshot columns of the growth tables and chart: all of them up to
 * HG_COLS, else HG_COLS of them, the first, the last and evenly spaced ones
 * between (growth, "suspected leak" and the order of the rows are computed
 * over every snapshot).  A thousand snapshots made a 40 MB page that took
 * 25 s to load. */
static size_t growth_columns(size_t n, size_t *cols)
{
    if (n <= HG_COLS) {
        for (size_t i = 0; i < n; i++)
            cols[i] = i;
        return n;
    }
    for (size_t c = 0; c < HG_COLS; c++) /* step >= 1: strictly increasing */
        cols[c] = c * (n - 1) / (HG_COLS - 1);
    return HG_COLS;
}

/* v[cols[0]], v[cols[1]], ... */
static void put_cols(struct hw *w, const char *k, const uint64_t *v, const size_t *cols, size_t ncols)
{
    json_key(&w->j, k);
    json_arr(&w->j);
    for (size_t i = 0; i < ncols; i++) {
        json_u64(&w->j, v[cols[i]]);
    }
    json_end_arr(&w->j);
}

/* The sites of a diff's per-site table (invalid frees, teardown leaks)
 * whose measure changed between the snapshots: they sort first. */
static void put_site_rows(struct hw *w, const char *name, const struct site_table *t, const size_t *cols,
                          size_t ncols)
{
    json_key(&w->j, name);
    json_arr(&w->j);
    size_t n = t->nchanged < HT_ROWS ? t->nchanged : HT_ROWS;
    for (size_t i = 0; i < n; i++) {
        const struct site_row *row = &t->row[i];
        int64_t change = row->change > INT64_MAX ? INT64_MAX : (int64_t)row->change;
        const uint64_t *count, *bytes;
        site_expand(t, row, &count, &bytes);
        json_obj(&w->j);
        kv_s(w, "api", gl_api_name(row->k.api));
        kv_i(w, "device", row->k.device);
        if (t->by_bytes) {
            kv_s(w, "kind", gl_kind_name(row->k.kind));
            kv_s(w, "teardown", gl_api_name(row->k.teardown));
            kv_s(w, "rule", row->k.rule >= 0 ? w->r->sup->rules[row->k.rule].name : NULL);
            put_cols(w, "bytes", bytes, cols, ncols);
        } else {
            kv_b(w, "refused", row->k.refused);
        }
        put_cols(w, "count", count, cols, ncols);
        kv_i(w, "change", row->shrank ? -change : change);
        kv_i(w, "stack", hw_stack(w, row->k.cs));
        json_end_obj(&w->j);
    }
    json_end_arr(&w->j);
}

void html_growth(struct hw *w, const struct html_multi *hm)
{
    json_key(&w->j, "growth");
    if (!hm) {
        json_null(&w->j);
        return;
    }
    const struct diff_result *d = hm->d;
    size_t cols[HG_COLS];
    size_t ncols = growth_columns(hm->n, cols);
    json_obj(&w->j);
    kv_b(w, "same_process", d->same_process);
    kv_u(w, "snapshots_total", hm->n);
    struct series_clock clock = series_clock_of(hm->m, hm->n);
    json_key(&w->j, "rate_elapsed_ns"); /* what the rows' rates per hour are over */
    if (clock.state == SERIES_CLOCK_KNOWN)
        json_u64(&w->j, clock.elapsed_ns);
    else
        json_null(&w->j);
    kv_s(w, "no_rate", series_clock_why_not(clock.state));
    json_key(&w->j, "snapshots"); /* the columns: number is the snapshot's place, from 1 */
    json_arr(&w->j);
    for (size_t c = 0; c < ncols; c++) {
        const struct msnap *m = &hm->m[cols[c]];
        const struct snap_process *p = &m->s.proc;
        json_obj(&w->j);
        kv_u(w, "number", cols[c] + 1);
        kv_s(w, "path", m->path);
        kv_u(w, "pid", p->pid);
        json_key(&w->j, "rank"); json_rank(&w->j, p);
        kv_sn(w, "host", &p->host);
        kv_u(w, "index", p->index);
        kv_u(w, "duration_ns", p->snapshot_mono_ns);
        uint64_t live = 0;
        for (size_t k = 0; k < m->s.nallocs; k++)
            live = sat_add(live, m->s.allocs[k].size);
        kv_u(w, "live_bytes", live);
        json_end_obj(&w->j);
    }
    json_end_arr(&w->j);
    json_key(&w->j, "rows");
    json_arr(&w->j);
    size_t n = d->t.nshown < HT_ROWS ? d->t.nshown : HT_ROWS;
    for (size_t i = 0; i < n; i++) {
        const struct mrow *row = &d->t.rows[i];
        const uint64_t *bytes, *count;
        mt_expand(&d->t, row, &bytes, &count);
        int64_t growth = row->growth > INT64_MAX ? INT64_MAX : (int64_t)row->growth;
        json_obj(&w->j);
        kv_s(w, "kind", gl_kind_name(row->kind));
        kv_i(w, "device", row->device);
        kv_s(w, "rule", row->rule >= 0 ? w->r->sup->rules[row->rule].name : NULL);
        put_cols(w, "bytes", bytes, cols, ncols);
        put_cols(w, "count", count, cols, ncols);
        kv_i(w, "growth", row->shrank ? -growth : growth);
        kv_b(w, "monotonic", row->monotonic);
        kv_b(w, "suspected_leak", row->suspected);
        kv_b(w, "cache_growth", row->cache_growth);
        kv_b(w, "torch_segments", !row->beyond_torch);
        json_per_hour(&w->j, mrow_per_hour(&clock, row));
        kv_i(w, "stack", hw_stack(w, row->cs));
        json_end_obj(&w->j);
    }
    json_end_arr(&w->j);
    kv_u(w, "rows_total", d->t.n);
    json_key(&w->j, "devices"); /* each device's live bytes and peak per snapshot */
    json_arr(&w->j);
    size_t nd = d->devs.n < HT_ROWS ? d->devs.n : HT_ROWS;
    for (size_t k = 0; k < nd; k++) {
        const struct device_series *x = diff_devices_expand(&d->devs, k);
        json_obj(&w->j);
        kv_i(w, "device", d->devs.d[k].device);
        put_cols(w, "live", x->live, cols, ncols);
        put_cols(w, "peak", x->peak, cols, ncols);
        json_key(&w->j, "present");
        json_arr(&w->j);
        for (size_t c = 0; c < ncols; c++) {
            json_bool(&w->j, x->present[cols[c]]);
        }
        json_end_arr(&w->j);
        json_end_obj(&w->j);
    }
    json_end_arr(&w->j);
    kv_u(w, "devices_total", d->devs.n);
    put_site_rows(w, "frees", &d->frees.s, cols, ncols);
    put_site_rows(w, "teardown", &d->torn.s, cols, ncols);
    html_torch_growth(w, hm->m, hm->n, cols, ncols);
    json_end_obj(&w->j);
}
