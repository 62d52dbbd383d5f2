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

void html_timeline(struct hw *w, const struct report_ctx *r)
{
    const struct history *h = r->h;
    const struct snapshot *s = r->s;
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
    json_key(&w->j, "marks");
    json_arr(&w->j);
    size_t nm = h->nmarks < HT_MARKS ? h->nmarks : HT_MARKS;
    for (size_t i = 0; i < nm; i++) {
        const struct hist_mark *m = &h->marks[i];
        /* [type: 3 oom, 4 snapshot, 5 annotation, time (ns after t0), label, device, seq] */
        json_arr(&w->j);
        json_u64(&w->j, m->type);
        json_u64(&w->j, m->time_ns - (m->time_ns >= h->t0 ? h->t0 : m->time_ns));
        if (m->label)
            json_strn(&w->j, m->label->text.s, m->label->text.len);
        else
            json_null(&w->j);
        json_i64(&w->j, m->device);
        json_u64(&w->j, m->seq);
        json_end_arr(&w->j);
    }
    json_end_arr(&w->j);
    kv_u(w, "marks_total", h->nmarks);

    /* event index of each point of each device's series */
    size_t **evi = xcalloc(h->ndev ? h->ndev : 1, sizeof *evi);
    size_t *k = xcalloc(h->ndev ? h->ndev : 1, sizeof *k);
    bool ok = evi && k;
    for (size_t d = 0; ok && d < h->ndev; d++)
        ok = (evi[d] = xmalloc((h->dev[d].n ? h->dev[d].n : 1) * sizeof **evi)) != NULL;
    size_t last_d = 0;
    for (size_t i = 0; ok && i < s->nevents; i++) {
        const struct snap_event *e = &s->events[i];
        if (e->type != GL_EV_ALLOC && e->type != GL_EV_FREE)
            continue;
        if (last_d >= h->ndev || h->dev[last_d].device != e->device)
            for (last_d = 0; last_d < h->ndev && h->dev[last_d].device != e->device; last_d++)
                ;
        if (last_d < h->ndev && k[last_d] < h->dev[last_d].n)
            evi[last_d][k[last_d]++] = i;
    }
    if (!ok) {
        w->oom = true;
    }
    /* events shown on hover, shared by every device */
    size_t nev = 0, capev = 0;
    size_t *ev = NULL;
    json_key(&w->j, "devices");
    json_arr(&w->j);
    size_t shown = 0;
    for (size_t d = 0; ok && d < h->ndev; d++) {
        const struct hist_dev *hd = &h->dev[d];
        if (hd->n == 0) /* no alloc/free event on it: nothing to draw */
            continue;
        shown++;
        json_obj(&w->j);
        kv_i(w, "device", hd->device);
        kv_u(w, "start_bytes", hd->base);
        kv_u(w, "max_bytes", hd->max_bytes);
        kv_u(w, "max_time_ns", hd->max_time_ns - h->t0);
        kv_u(w, "max_seq", hd->max_seq);
        kv_u(w, "points", hd->n);
        size_t npts = k[d]; /* points with a known event (== hd->n) */
        bool raw = hd->n <= HT_POINTS;
        kv_b(w, "raw", raw);
        /* buckets: [first index, last index] ranges over the points */
        size_t nb = 0;
        size_t *bfirst = xmalloc((raw ? hd->n : HT_POINTS) * sizeof *bfirst + 1);
        if (!bfirst) {
            w->oom = true;
            json_end_obj(&w->j);
            continue;
        }
        if (raw) {
            for (size_t i = 0; i < hd->n; i++)
                bfirst[nb++] = i;
        } else {
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
        }
        static const char *const cols[] = {"t", "lo", "hi", "last", "ev"};
        for (int c = 0; c < 5; c++) {
            if (raw && (c == 1 || c == 2))
                continue; /* raw: lo = hi = last */
            json_key(&w->j, cols[c]);
            json_arr(&w->j);
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
                case 0: json_u64(&w->j, hd->time_ns[i0] - (hd->time_ns[i0] >= h->t0 ? h->t0 : hd->time_ns[i0])); break;
                case 1: json_u64(&w->j, lo); break;
                case 2: json_u64(&w->j, hi); break;
                case 3: json_u64(&w->j, hd->bytes[i1 - 1]); break;
                default:
                    if (at < npts) {
                        if (hw_grow((void **)&ev, &capev, nev + 1, sizeof *ev)) {
                            w->oom = true;
                            json_i64(&w->j, -1);
                            break;
                        }
                        ev[nev] = evi[d][at];
                        json_u64(&w->j, nev++);
                    } else {
                        json_i64(&w->j, -1);
                    }
                }
            }
            json_end_arr(&w->j);
        }
        free(bfirst);
        json_end_obj(&w->j);
    }
    json_end_arr(&w->j);
    /* [seq, time (after t0), size, type (1 alloc, 2 free), stack, kind, api, ptr (hex)];
     * kind and api index kind_names and api_names */
    json_key(&w->j, "kind_names");
    json_arr(&w->j);
    for (unsigned i = 0; i <= GL_KIND_COUNT; i++) {
        json_str(&w->j, gl_kind_name(i));
    }
    json_end_arr(&w->j);
    json_key(&w->j, "api_names");
    json_arr(&w->j);
    for (unsigned i = 0; i <= GL_API_COUNT; i++) {
        json_str(&w->j, gl_api_name(i));
    }
    json_end_arr(&w->j);
    json_key(&w->j, "events");
    json_arr(&w->j);
    for (size_t i = 0; i < nev; i++) {
        const struct snap_event *e = &s->events[ev[i]];
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
    free(ev);
    for (size_t d = 0; evi && d < h->ndev; d++)
        free(evi[d]);
    free(evi);
    free(k);
    json_end_obj(&w->j);
}
