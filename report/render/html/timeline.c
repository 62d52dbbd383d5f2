/* The page's "timeline" member: each device's live bytes over time,
 * downsampled to at most HT_POINTS points, and the marks (OOM, snapshots,
 * annotations). */
#include "render/html/timeline.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analyze.h"
#include "analysis/bad_free_block.h"
#include "analysis/bad_frees.h"
#include "analysis/calls.h"
#include "analysis/frag.h"
#include "analysis/history.h"
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

/* [type: 3 oom, 4 snapshot, 5 annotation, time (ns after t0), label, device, seq,
 *  the snapshot's number (snapshot marks; else null)] */
static void timeline_marks(struct hw *w, const struct history *h)
{
    json_key(&w->j, "marks");
    json_arr(&w->j);
    size_t nm = h->nmarks < HT_MARKS ? h->nmarks : HT_MARKS;
    for (size_t i = 0; i < nm; i++) {
        const struct hist_mark *m = &h->marks[i];
        json_arr(&w->j);
        json_u64(&w->j, m->type);
        json_u64(&w->j, m->time_ns - (m->time_ns >= h->t0 ? h->t0 : m->time_ns));
        if (m->label)
            json_strn(&w->j, m->label->text.s, m->label->text.len);
        else
            json_null(&w->j);
        json_i64(&w->j, m->device);
        json_u64(&w->j, m->seq);
        if (m->type == GL_EV_SNAPSHOT)
            json_u64(&w->j, m->index);
        else
            json_null(&w->j);
        json_end_arr(&w->j);
    }
    json_end_arr(&w->j);
    kv_u(w, "marks_total", h->nmarks);
}

/* The event index of each point of each device's series: evi[d][i] for
 * the k[d] points whose event was found. */
struct point_events {
    size_t **evi;
    size_t *k;
};

static void point_events_free(struct point_events *pe, size_t ndev)
{
    for (size_t d = 0; pe->evi && d < ndev; d++)
        free(pe->evi[d]);
    free(pe->evi);
    free(pe->k);
}

/* false: out of memory. */
static bool point_events_build(const struct history *h, const struct snapshot *s,
                               struct point_events *pe)
{
    pe->evi = xcalloc(h->ndev ? h->ndev : 1, sizeof *pe->evi);
    pe->k = xcalloc(h->ndev ? h->ndev : 1, sizeof *pe->k);
    bool ok = pe->evi && pe->k;
    for (size_t d = 0; ok && d < h->ndev; d++)
        ok = (pe->evi[d] = xmalloc((h->dev[d].n ? h->dev[d].n : 1) * sizeof **pe->evi)) != NULL;
    size_t last_d = 0;
    for (size_t i = 0; ok && i < s->nevents; i++) {
        const struct snap_event *e = &s->events[i];
        if (e->type != GL_EV_ALLOC && e->type != GL_EV_FREE)
            continue;
        if (last_d >= h->ndev || h->dev[last_d].device != e->device)
            for (last_d = 0; last_d < h->ndev && h->dev[last_d].device != e->device; last_d++)
                ;
        if (last_d < h->ndev && pe->k[last_d] < h->dev[last_d].n)
            pe->evi[last_d][pe->k[last_d]++] = i;
    }
    return ok;
}

/* The events shown on hover, shared by every device: indexes into s->events. */
struct hover_events {
    size_t *ev;
    size_t n, cap;
};

/* The first point of each bucket of a device's series: every point when
 * raw, else one bucket per HT_POINTS-th of the time span.  Returns the
 * number of buckets. */
static size_t timeline_buckets(const struct history *h, const struct hist_dev *hd, bool raw,
                               size_t *bfirst)
{
    size_t nb = 0;
    if (raw) {
        for (size_t i = 0; i < hd->n; i++)
            bfirst[nb++] = i;
        return nb;
    }
    uint64_t span = h->t1 - h->t0 + 1;
    size_t cur = SIZE_MAX;
    for (size_t i = 0; i < hd->n; i++) {
        uint64_t t = hd->time_ns[i] > h->t0 ? hd->time_ns[i] - h->t0 : 0;
        size_t b = (size_t)((unsigned __int128)t * HT_POINTS / span);
        if (b != cur) {
            bfirst[nb++] = i;
            cur = b;
        }
    }
    return nb;
}

/* Bucket [i0, i1)'s event shown on hover: that of its highest point, added
 * to the shared list; -1 when that point has no known event. */
static void bucket_event(struct hw *w, struct hover_events *hv, const size_t *evi, size_t npts,
                         size_t at)
{
    if (at >= npts) {
        json_i64(&w->j, -1);
        return;
    }
    if (hw_grow((void **)&hv->ev, &hv->cap, hv->n + 1, sizeof *hv->ev)) {
        w->oom = true;
        json_i64(&w->j, -1);
        return;
    }
    hv->ev[hv->n] = evi[at];
    json_u64(&w->j, hv->n++);
}

enum { COL_T, COL_LO, COL_HI, COL_LAST, COL_EV, NCOLS };

/* One column of a device's series: a value per bucket. */
static void series_column(struct hw *w, const struct history *h, const struct hist_dev *hd,
                          const size_t *bfirst, size_t nb, int c, const size_t *evi, size_t npts,
                          struct hover_events *hv)
{
    for (size_t b = 0; b < nb; b++) {
        size_t i0 = bfirst[b], i1 = b + 1 < nb ? bfirst[b + 1] : hd->n;
        uint64_t lo = UINT64_MAX, hi = 0;
        size_t at = i0;
        for (size_t i = i0; i < i1; i++) {
            if (hd->bytes[i] < lo)
                lo = hd->bytes[i];
            if (hd->bytes[i] > hi) {
                hi = hd->bytes[i];
                at = i;
            }
        }
        switch (c) {
        case COL_T: json_u64(&w->j, hd->time_ns[i0] - (hd->time_ns[i0] >= h->t0 ? h->t0 : hd->time_ns[i0])); break;
        case COL_LO: json_u64(&w->j, lo); break;
        case COL_HI: json_u64(&w->j, hi); break;
        case COL_LAST: json_u64(&w->j, hd->bytes[i1 - 1]); break;
        default: bucket_event(w, hv, evi, npts, at);
        }
    }
}

/* One device's series, downsampled to at most HT_POINTS buckets. */
static void timeline_device(struct hw *w, const struct history *h, const struct hist_dev *hd,
                            const size_t *evi, size_t npts, struct hover_events *hv)
{
    json_obj(&w->j);
    kv_i(w, "device", hd->device);
    kv_u(w, "start_bytes", hd->base);
    kv_u(w, "max_bytes", hd->max_bytes);
    kv_u(w, "max_time_ns", hd->max_time_ns - h->t0);
    kv_u(w, "max_seq", hd->max_seq);
    kv_u(w, "points", hd->n);
    bool raw = hd->n <= HT_POINTS;
    kv_b(w, "raw", raw);
    /* buckets: [first index, last index] ranges over the points */
    size_t *bfirst = xmalloc((raw ? hd->n : HT_POINTS) * sizeof *bfirst + 1);
    if (!bfirst) {
        w->oom = true;
        json_end_obj(&w->j);
        return;
    }
    size_t nb = timeline_buckets(h, hd, raw, bfirst);
    static const char *const cols[NCOLS] = {"t", "lo", "hi", "last", "ev"};
    for (int c = 0; c < NCOLS; c++) {
        if (raw && (c == COL_LO || c == COL_HI))
            continue; /* raw: lo = hi = last */
        json_key(&w->j, cols[c]);
        json_arr(&w->j);
        series_column(w, h, hd, bfirst, nb, c, evi, npts, hv);
        json_end_arr(&w->j);
    }
    free(bfirst);
    json_end_obj(&w->j);
}

/* Names the events' kind and api numbers index. */
static void timeline_names(struct hw *w)
{
    json_key(&w->j, "kind_names");
    json_arr(&w->j);
    for (unsigned i = 0; i <= GL_KIND_COUNT; i++)
        json_str(&w->j, gl_kind_name(i));
    json_end_arr(&w->j);
    json_key(&w->j, "api_names");
    json_arr(&w->j);
    for (unsigned i = 0; i <= GL_API_COUNT; i++)
        json_str(&w->j, gl_api_name(i));
    json_end_arr(&w->j);
}

/* [seq, time (after t0), size, type (1 alloc, 2 free), stack, kind, api, ptr (hex)];
 * kind and api index kind_names and api_names */
static void timeline_events(struct hw *w, const struct report_ctx *r, const struct hover_events *hv)
{
    const struct history *h = r->h;
    json_key(&w->j, "events");
    json_arr(&w->j);
    for (size_t i = 0; i < hv->n; i++) {
        const struct snap_event *e = &r->s->events[hv->ev[i]];
        json_arr(&w->j);
        json_u64(&w->j, e->seq);
        json_u64(&w->j, e->time_ns >= h->t0 ? e->time_ns - h->t0 : 0);
        json_u64(&w->j, e->size);
        json_u64(&w->j, e->type);
        json_i64(&w->j, hw_stack(w, sview_cs(r->v, e->stack_id)));
        json_u64(&w->j, e->kind < GL_KIND_COUNT ? e->kind : GL_KIND_COUNT);
        json_u64(&w->j, e->api < GL_API_COUNT ? e->api : GL_API_COUNT);
        put_hex(w, e->ptr);
        json_end_arr(&w->j);
    }
    json_end_arr(&w->j);
}

void html_timeline(struct hw *w, const struct report_ctx *r)
{
    const struct history *h = r->h;
    json_key(&w->j, "timeline");
    json_obj(&w->j);
    kv_b(w, "present", h->present);
    if (!h->present) {
        json_end_obj(&w->j);
        return;
    }
    kv_u(w, "t0", h->t0);
    kv_u(w, "t1", h->t1);
    kv_u(w, "first_seq", h->first_seq);
    kv_u(w, "last_seq", h->last_seq);
    kv_b(w, "wrapped", h->first_seq > 1);
    kv_b(w, "inconsistent", h->inconsistent);
    timeline_marks(w, h);

    struct point_events pe;
    bool ok = point_events_build(h, r->s, &pe);
    if (!ok)
        w->oom = true;
    struct hover_events hv = {0};
    json_key(&w->j, "devices");
    json_arr(&w->j);
    for (size_t d = 0; ok && d < h->ndev; d++)
        if (h->dev[d].n) /* no alloc/free event on it: nothing to draw */
            timeline_device(w, h, &h->dev[d], pe.evi[d], pe.k[d], &hv);
    json_end_arr(&w->j);
    timeline_names(w);
    timeline_events(w, r, &hv);
    free(hv.ev);
    point_events_free(&pe, h->ndev);
    json_end_obj(&w->j);
}
