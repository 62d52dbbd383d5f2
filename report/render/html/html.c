/* --html: the self-contained page.  Everything the page shows is computed
 * and aggregated here and embedded as one JSON document in a
 * <script type="application/json"> element; report/html/report.js draws it
 * (SVG, no library) and report/html/report.css styles it.  A Content
 * Security Policy in the page forbids every network request.
 *
 * Size bounds, whatever the snapshot (docs/html-report.md):
 *   timeline    at most HT_POINTS points per device: the raw series when it
 *               is shorter, else HT_POINTS time buckets with the lowest,
 *               highest and last level and the event that reached the
 *               highest (shown on hover)
 *   flame graph nodes under 1/HF_DIV of the total are left out (their
 *               bytes still count in their parents), at most HF_NODES
 *   address map at most HM_CELLS cells per device: 2 MiB pages, or runs of
 *               2^k pages, with long empty stretches folded into one cell
 *   tables      at most HT_ROWS rows each
 *   growth      at most HG_COLS snapshot columns (several snapshots) */
#include "render/html/html.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/bad_free_block.h"
#include "analysis/bad_frees.h"
#include "analysis/oom.h"
#include "analysis/teardown.h"
#include "analysis/calls.h"
#include "render/json/json.h"
#include "util/radix.h"
#include "util/sat.h"
#include "util/sort.h"
#include "analysis/analyze.h"
#include "analysis/frag.h"
#include "analysis/history.h"
#include "model/snap_read.h"
#include "model/stackdb.h"
#include "model/suppress.h"
#include "model/symbolize.h"
#include "model/reason.h"
#include "render/report.h"
#include "util/utf8.h"
#include "util/xalloc.h"

#define HT_POINTS 2000
#define HF_DIV 3000
#define HF_NODES 30000
#define HM_CELLS 4096
#define HM_SMALL_GAP 8 /* empty runs up to this many cells are drawn cell by cell */
#define HT_ROWS 1000
#define HT_MARKS 5000
#define HG_COLS 32 /* snapshot columns of the growth tables */

struct hw {
    struct json j; /* the page's data, compact and script-safe */
    struct report_ctx *r;
    const struct stackdb *db;
    int32_t *cs_local;   /* db cstack -> local stack index, -1 */
    uint32_t *cs_list;   /* local stack index -> db cstack */
    size_t ncs, capcs;
    int32_t *fr_local;   /* db frame id -> local frame index, -1 */
    int64_t *fr_list;    /* local frame -> db frame id, or -(pseudo index + 1) */
    size_t nfr, capfr;
    char **pseudo;       /* names that are not frames (roots of the flame graphs) */
    size_t npseudo;
    bool oom;
};

/* ---- output helpers: the one JSON writer (render/json/json.c), compact
 * and script-safe, as the page's data sits inside a <script> element ---- */

static void kv_u(struct hw *w, const char *k, uint64_t v) { json_key(&w->j, k); json_u64(&w->j, v); }
static void kv_i(struct hw *w, const char *k, int64_t v) { json_key(&w->j, k); json_i64(&w->j, v); }
static void kv_s(struct hw *w, const char *k, const char *s) { json_key(&w->j, k); json_str(&w->j, s); }
static void kv_sn(struct hw *w, const char *k, const struct snap_str *s)
{
    json_key(&w->j, k);
    json_strn(&w->j, s->s, s->len);
}

static void kv_b(struct hw *w, const char *k, bool v) { json_key(&w->j, k); json_bool(&w->j, v); }
static void kv_d(struct hw *w, const char *k, double v) { json_key(&w->j, k); json_double(&w->j, v); }
/* "0x..." (addresses as strings: JavaScript numbers stop at 2^53) */
static void put_hex(struct hw *w, uint64_t v)
{
    char buf[24];
    snprintf(buf, sizeof buf, "0x%" PRIx64, v);
    json_str(&w->j, buf);
}

/* ---- stacks and frames, interned into the page's own tables ---- */

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap * 2 : 256;
    while (nc < need)
        nc *= 2;
    void *q = xrealloc(*p, nc * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = nc;
    return 0;
}

static int32_t frame_local(struct hw *w, uint32_t fid)
{
    if (w->fr_local[fid] >= 0)
        return w->fr_local[fid];
    if (grow((void **)&w->fr_list, &w->capfr, w->nfr + 1, sizeof *w->fr_list)) {
        w->oom = true;
        return 0;
    }
    w->fr_list[w->nfr] = fid;
    return w->fr_local[fid] = (int32_t)w->nfr++;
}

static int32_t pseudo_local(struct hw *w, const char *name)
{
    for (size_t i = 0; i < w->nfr; i++)
        if (w->fr_list[i] < 0 && strcmp(w->pseudo[-w->fr_list[i] - 1], name) == 0)
            return (int32_t)i;
    char **np = xrealloc(w->pseudo, (w->npseudo + 1) * sizeof *np);
    char *copy = xstrdup(name);
    if (np)
        w->pseudo = np;
    if (!np || !copy || grow((void **)&w->fr_list, &w->capfr, w->nfr + 1, sizeof *w->fr_list)) {
        free(copy);
        w->oom = true;
        return 0;
    }
    w->pseudo[w->npseudo++] = copy;
    w->fr_list[w->nfr] = -(int64_t)w->npseudo;
    return (int32_t)w->nfr++;
}

/* Local index of a canonical stack (0 = none captured is a stack too). */
static int32_t stack_local(struct hw *w, uint32_t cs)
{
    if (cs >= w->db->ncs)
        cs = 0;
    if (w->cs_local[cs] >= 0)
        return w->cs_local[cs];
    if (grow((void **)&w->cs_list, &w->capcs, w->ncs + 1, sizeof *w->cs_list)) {
        w->oom = true;
        return 0;
    }
    const struct cstack *c = &w->db->cs[cs];
    for (uint32_t i = 0; cs && i < c->n; i++)
        frame_local(w, w->db->seq[c->first + i]);
    w->cs_list[w->ncs] = cs;
    return w->cs_local[cs] = (int32_t)w->ncs++;
}

static const char *base_of(const char *p)
{
    const char *s = p ? strrchr(p, '/') : NULL;
    return s ? s + 1 : p;
}

static void put_frames_table(struct hw *w)
{
    json_key(&w->j, "frames");
    json_arr(&w->j);
    for (size_t i = 0; i < w->nfr; i++) {
        if (w->fr_list[i] < 0) {
            json_arr(&w->j);
            json_str(&w->j, w->pseudo[-w->fr_list[i] - 1]);
            json_str(&w->j, "");
            json_u64(&w->j, 0);
            json_str(&w->j, "");
            json_u64(&w->j, 0);
            json_end_arr(&w->j);
            continue;
        }
        const struct sym_frame *fr = &w->db->frames[w->fr_list[i]];
        char buf[96];
        const char *name = fr->function;
        if (!name) {
            if (fr->module)
                snprintf(buf, sizeof buf, "%s+0x%" PRIx64, fr->module, fr->offset);
            else
                snprintf(buf, sizeof buf, "0x%" PRIx64, fr->address);
            name = buf;
        }
        /* [name, file (full), line, module, flags: 1 inlined, 2 python] */
        json_arr(&w->j);
        json_str(&w->j, name);
        json_str(&w->j, fr->file ? fr->file : "");
        json_u64(&w->j, fr->line);
        json_str(&w->j, fr->module ? fr->module : "");
        json_u64(&w->j, (fr->inlined ? 1u : 0u) | (fr->python ? 2u : 0u));
        json_end_arr(&w->j);
    }
    json_end_arr(&w->j);
    json_key(&w->j, "stacks");
    json_arr(&w->j);
    for (size_t i = 0; i < w->ncs; i++) {
        json_arr(&w->j);
        uint32_t cs = w->cs_list[i];
        const struct cstack *c = &w->db->cs[cs];
        for (uint32_t k = 0; cs && k < c->n; k++) {
            json_u64(&w->j, (uint64_t)w->fr_local[w->db->seq[c->first + k]]);
        }
        json_end_arr(&w->j);
    }
    json_end_arr(&w->j);
}

/* ---- snapshot header and summary ---- */

static void put_snapshot(struct hw *w, const struct report_ctx *r, const char *path)
{
    const struct snap_process *p = &r->s->proc;
    json_key(&w->j, "snapshot");
    json_obj(&w->j);
    kv_s(w, "path", path);
    kv_u(w, "pid", p->pid);
    kv_u(w, "rank", p->rank);
    kv_s(w, "reason", reason_name(p->reason));
    kv_b(w, "final", p->flags & GL_SNAP_F_FINAL);
    kv_sn(w, "host", &p->host);
    kv_sn(w, "exe", &p->exe);
    json_key(&w->j, "argv");
    json_arr(&w->j);
    for (uint32_t i = 0; i < p->argc; i++) {
        json_strn(&w->j, p->argv[i].s, p->argv[i].len);
    }
    json_end_arr(&w->j);
    kv_u(w, "start_unix_ns", p->start_unix_ns);
    kv_u(w, "duration_ns", p->snapshot_mono_ns);
    kv_u(w, "live_allocations", r->s->nallocs);
    kv_u(w, "stacks", r->s->nstacks);
    kv_u(w, "events", r->s->nevents);
    json_end_obj(&w->j);
}

static void put_summary(struct hw *w, const struct analysis *a)
{
    json_key(&w->j, "summary");
    json_obj(&w->j);
    kv_u(w, "bytes", a->total_bytes);
    kv_u(w, "count", a->total_count);
    kv_u(w, "leaked_bytes", a->leaks.bytes);
    kv_u(w, "leaked_count", a->leaks.count);
    kv_u(w, "leak_groups", a->leaks.total);
    kv_u(w, "cached_bytes", a->cached.bytes);
    kv_u(w, "cached_count", a->cached.count);
    kv_u(w, "suppressed_bytes", a->suppressed.bytes);
    kv_u(w, "suppressed_count", a->suppressed.count);
    kv_u(w, "mapped_bytes", a->mapped.bytes);
    kv_u(w, "mapped_count", a->mapped.count);
    kv_u(w, "mapped_groups", a->mapped.total);
    json_end_obj(&w->j);
}

static void put_devices(struct hw *w, const struct analysis *a, const struct frag *fr)
{
    json_key(&w->j, "devices");
    json_arr(&w->j);
    for (size_t d = 0; d < a->ndevs; d++) {
        const struct snap_device *v = a->devs[d].dev;
        json_obj(&w->j);
        kv_i(w, "device", v->device);
        kv_u(w, "live_bytes", v->live_bytes);
        kv_u(w, "live_count", v->live_count);
        kv_u(w, "peak_bytes", v->peak_bytes);
        kv_u(w, "peak_seq", v->peak_seq);
        kv_u(w, "peak_time_ns", v->peak_time_ns);
        kv_u(w, "alloc_count", v->alloc_count);
        kv_u(w, "free_count", v->free_count);
        kv_u(w, "failed_count", v->failed_count);
        kv_u(w, "mem_free", v->mem_free);
        kv_u(w, "mem_total", v->mem_total);
        for (size_t i = 0; fr && i < fr->ndev; i++)
            if (fr->dev[i].device == v->device)
                kv_d(w, "fragmentation", fr->dev[i].headline);
        json_end_obj(&w->j);
    }
    json_end_arr(&w->j);
}

/* ---- timeline ---- */

static void put_timeline(struct hw *w, const struct report_ctx *r)
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
                        if (grow((void **)&ev, &capev, nev + 1, sizeof *ev)) {
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
        json_i64(&w->j, stack_local(w, sview_cs(r->v, e->stack_id)));
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

/* ---- flame graphs ---- */

struct fnode {
    int32_t name; /* local frame index */
    uint32_t parent;
    uint64_t value;
    uint32_t child, sib; /* 0 = none (node 0 is the root) */
};

struct ftree {
    struct fnode *n;
    size_t nn, cap;
    uint32_t *slots; /* hash (parent, name) -> node + 1 */
    size_t nslots;
};

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static int ft_rehash(struct ftree *t)
{
    size_t ns = t->nslots ? t->nslots * 2 : 1024;
    uint32_t *sl = xcalloc(ns, sizeof *sl);
    if (!sl)
        return -1;
    free(t->slots);
    t->slots = sl;
    t->nslots = ns;
    for (size_t c = 1; c < t->nn; c++) {
        size_t h = mix(((uint64_t)t->n[c].parent << 32) ^ (uint32_t)t->n[c].name) & (ns - 1);
        while (sl[h])
            h = (h + 1) & (ns - 1);
        sl[h] = (uint32_t)c + 1;
    }
    return 0;
}

/* Child of p named name, created if missing; 0 when out of memory. */
static uint32_t ft_child(struct ftree *t, uint32_t p, int32_t name)
{
    if ((t->nn + 1) * 2 > t->nslots && ft_rehash(t))
        return 0;
    size_t h = mix(((uint64_t)p << 32) ^ (uint32_t)name) & (t->nslots - 1);
    for (; t->slots[h]; h = (h + 1) & (t->nslots - 1)) {
        uint32_t c = t->slots[h] - 1;
        if (t->n[c].name == name && t->n[c].parent == p)
            return c;
    }
    if (grow((void **)&t->n, &t->cap, t->nn + 1, sizeof *t->n))
        return 0;
    uint32_t c = (uint32_t)t->nn++;
    t->n[c] = (struct fnode){name, p, 0, 0, t->n[p].child};
    t->n[p].child = c;
    t->slots[h] = c + 1;
    return c;
}

static int ft_add(struct hw *w, struct ftree *t, int32_t top, uint32_t cs, uint64_t bytes)
{
    t->n[0].value += bytes;
    uint32_t p = ft_child(t, 0, top);
    if (!p && t->nn <= 1)
        return -1;
    t->n[p].value += bytes;
    const struct cstack *c = cs < w->db->ncs ? &w->db->cs[cs] : NULL;
    if (!cs || !c || c->n == 0) {
        uint32_t x = ft_child(t, p, pseudo_local(w, "[no stack]"));
        if (!x)
            return -1;
        t->n[x].value += bytes;
        return 0;
    }
    for (uint32_t i = c->n; i-- > 0;) { /* outermost first */
        uint32_t x = ft_child(t, p, frame_local(w, w->db->seq[c->first + i]));
        if (!x)
            return -1;
        t->n[x].value += bytes;
        p = x;
    }
    return 0;
}

static int cmp_val_desc(const void *a, const void *b, void *ctx)
{
    const struct fnode *n = ctx;
    uint64_t x = n[*(const uint32_t *)a].value, y = n[*(const uint32_t *)b].value;
    return x > y ? -1 : x < y;
}

static void ft_emit(struct hw *w, const struct ftree *t, uint32_t i, uint64_t min, size_t *budget)
{
    json_arr(&w->j);
    json_i64(&w->j, t->n[i].name);
    json_u64(&w->j, t->n[i].value);
    uint32_t kids[64];
    size_t nk = 0;
    uint32_t *all = NULL;
    size_t nall = 0;
    for (uint32_t c = t->n[i].child; c; c = t->n[c].sib)
        if (t->n[c].value >= min)
            nall++;
    if (nall) {
        all = nall <= 64 ? kids : xmalloc(nall * sizeof *all);
        if (!all) {
            w->oom = true;
            json_end_arr(&w->j);
            return;
        }
        for (uint32_t c = t->n[i].child; c; c = t->n[c].sib)
            if (t->n[c].value >= min)
                all[nk++] = c;
        sort_array_r(all, nk, sizeof *all, cmp_val_desc, t->n);
        json_arr(&w->j);
        for (size_t k = 0; k < nk && *budget; k++) {
            (*budget)--;
            ft_emit(w, t, all[k], min, budget);
        }
        json_end_arr(&w->j);
        if (all != kids)
            free(all);
    }
    json_end_arr(&w->j);
}

static void ft_free(struct ftree *t)
{
    free(t->n);
    free(t->slots);
}

static int ft_init(struct ftree *t, struct hw *w, const char *root)
{
    memset(t, 0, sizeof *t);
    if (grow((void **)&t->n, &t->cap, 1, sizeof *t->n) || ft_rehash(t))
        return -1;
    t->n[0] = (struct fnode){pseudo_local(w, root), 0, 0, 0, 0};
    t->nn = 1;
    return 0;
}

static void put_flames(struct hw *w, const struct analysis *a)
{
    json_key(&w->j, "flame");
    json_obj(&w->j);
    for (int which = 0; which < 2; which++) {
        struct ftree t;
        if (ft_init(&t, w, which ? "peak" : "leaks")) {
            w->oom = true;
            break;
        }
        int rc = 0;
        char name[64];
        if (!which) {
            for (size_t i = 0; rc == 0 && i < a->leaks.total; i++) {
                const struct leak_group *g = &a->leaks.g[i];
                if (g->device < 0)
                    snprintf(name, sizeof name, "host:%s", gl_kind_name(g->kind));
                else
                    snprintf(name, sizeof name, "device_%d:%s", g->device, gl_kind_name(g->kind));
                rc = ft_add(w, &t, pseudo_local(w, name), g->cs, g->bytes);
            }
        } else {
            for (size_t d = 0; rc == 0 && d < a->ndevs; d++)
                for (size_t i = 0; rc == 0 && i < a->devs[d].ncomp_total; i++) {
                    const struct peak_item *p = &a->devs[d].comp[i];
                    if (p->device < 0)
                        snprintf(name, sizeof name, "host");
                    else
                        snprintf(name, sizeof name, "device_%d", p->device);
                    rc = ft_add(w, &t, pseudo_local(w, name), p->cs, p->bytes);
                }
        }
        if (rc)
            w->oom = true;
        json_key(&w->j, which ? "peak" : "leaks");
        uint64_t min = t.n[0].value / HF_DIV;
        if (min == 0)
            min = 1;
        size_t budget = HF_NODES;
        ft_emit(w, &t, 0, min, &budget);
        ft_free(&t);
    }
    json_end_obj(&w->j);
}

/* ---- tables ---- */

static void put_leak_rows(struct hw *w, const char *k, const struct group_list *l,
                          const struct report_ctx *r)
{
    json_key(&w->j, k);
    json_arr(&w->j);
    size_t n = l->n < HT_ROWS ? l->n : HT_ROWS;
    for (size_t i = 0; i < n; i++) {
        const struct leak_group *g = &l->g[i];
        json_obj(&w->j);
        kv_u(w, "bytes", g->bytes);
        kv_u(w, "count", g->count);
        kv_s(w, "kind", gl_kind_name(g->kind));
        kv_i(w, "device", g->device);
        kv_s(w, "api", gl_api_name(g->api));
        kv_u(w, "first_seq", g->first_seq);
        kv_u(w, "last_seq", g->last_seq);
        kv_u(w, "first_time_ns", g->first_time_ns);
        kv_u(w, "last_time_ns", g->last_time_ns);
        if (g->rule >= 0)
            kv_s(w, "rule", r->sup->rules[g->rule].name);
        kv_i(w, "stack", stack_local(w, g->cs));
        json_end_obj(&w->j);
    }
    json_end_arr(&w->j);
}

/* Frees of pointers with no live allocation, most frequent first. */
static void put_bad_free_rows(struct hw *w, const struct report_ctx *r)
{
    struct bad_free_totals t;
    const struct snap_bad_free **v = bad_frees_sorted(r->s, &t);
    json_key(&w->j, "invalid_frees");
    json_arr(&w->j);
    size_t n = t.sites < HT_ROWS ? t.sites : HT_ROWS;
    struct bad_free_block *blocks = bad_free_blocks(r->s);
    for (size_t i = 0; i < n; i++) {
        const struct snap_bad_free *b = v[i];
        const struct bad_free_block *k = &blocks[b - r->s->bad_frees];
        json_obj(&w->j);
        kv_u(w, "count", b->count);
        kv_b(w, "refused", b->flags & GL_BAD_FREE_F_REJECTED);
        kv_s(w, "api", gl_api_name(b->api));
        kv_i(w, "device", b->device);
        kv_u(w, "first_time_ns", b->time_ns);
        kv_i(w, "stack", stack_local(w, sview_cs(r->v, b->stack_id)));
        /* a double free: where the address was allocated and, with
         * GPULEAK_FREE_STACKS, first freed (-1: not known) */
        const struct snap_event *al, *fr = bad_free_previous(r->s, b, &al);
        kv_i(w, "prev_alloc_stack", fr ? stack_local(w, sview_cs(r->v, fr->stack_id)) : -1);
        kv_i(w, "prev_free_stack", fr && fr->free_stack_id ? stack_local(w, sview_cs(r->v, fr->free_stack_id)) : -1);
        kv_u(w, "prev_free_time_ns", fr ? fr->time_ns : 0);
        /* an address inside a block: how far in, the block and where it
         * was made (inside_stack -1: not inside any block known) */
        kv_i(w, "inside_stack", k->found ? stack_local(w, sview_cs(r->v, k->stack_id)) : -1);
        kv_u(w, "inside_offset", k->found ? b->ptr - k->base : 0);
        kv_u(w, "inside_bytes", k->found ? k->bytes : 0);
        kv_u(w, "inside_freed_ns", k->found && k->freed ? k->free_time_ns : 0);
        json_end_obj(&w->j);
    }
    json_end_arr(&w->j);
    free(blocks);
    free(v);
}

/* Allocation calls per stack, most calls first. */
static void put_call_rows(struct hw *w, const struct report_ctx *r)
{
    struct call_sites c;
    if (calls_build(r->v, &c) != 0)
        c = (struct call_sites){0};
    json_key(&w->j, "calls");
    json_arr(&w->j);
    size_t n = c.n < HT_ROWS ? c.n : HT_ROWS;
    for (size_t i = 0; i < n; i++) {
        const struct call_site *s = &c.site[i];
        json_obj(&w->j);
        kv_u(w, "calls", s->allocs);
        kv_u(w, "frees", s->frees);
        kv_u(w, "bytes", s->bytes);
        kv_s(w, "api", gl_api_name(s->api));
        kv_s(w, "kind", gl_kind_name(s->kind));
        kv_i(w, "stack", stack_local(w, s->cs));
        json_end_obj(&w->j);
    }
    json_end_arr(&w->j);
    calls_free(&c);
}

/* Memory never freed that a context teardown released, most bytes first. */
static void put_teardown_rows(struct hw *w, const struct report_ctx *r)
{
    struct torn_groups t;
    if (torn_build(r->v, &t) != 0)
        t = (struct torn_groups){0};
    json_key(&w->j, "teardown");
    json_arr(&w->j);
    size_t n = t.n < HT_ROWS ? t.n : HT_ROWS;
    for (size_t i = 0; i < n; i++) {
        const struct torn_group *g = &t.g[i];
        json_obj(&w->j);
        kv_u(w, "bytes", g->bytes);
        kv_u(w, "count", g->count);
        kv_s(w, "kind", gl_kind_name(g->kind));
        kv_i(w, "device", g->device);
        kv_s(w, "api", gl_api_name(g->api));
        kv_s(w, "teardown", gl_api_name(g->teardown));
        kv_u(w, "time_ns", g->time_ns);
        kv_s(w, "rule", g->rule >= 0 ? r->sup->rules[g->rule].name : "");
        kv_i(w, "stack", stack_local(w, g->cs));
        json_end_obj(&w->j);
    }
    json_end_arr(&w->j);
    torn_free(&t);
}

/* Allocations that failed for lack of memory, as the history holds them. */
static void put_oom_rows(struct hw *w, const struct report_ctx *r)
{
    json_key(&w->j, "oom");
    json_arr(&w->j);
    size_t k = 0;
    for (size_t i = 0; r->h->present && i < r->h->nmarks && k < HT_ROWS; i++) {
        const struct hist_mark *m = &r->h->marks[i];
        if (m->type != GL_EV_OOM)
            continue;
        k++;
        json_obj(&w->j);
        kv_u(w, "time_ns", m->time_ns);
        kv_i(w, "device", m->device);
        kv_s(w, "api", gl_api_name(m->api));
        kv_u(w, "requested", m->size);
        kv_u(w, "mem_free", m->mem_free);
        kv_u(w, "mem_total", m->mem_total);
        kv_u(w, "live", m->live_bytes);
        kv_u(w, "elsewhere", oom_elsewhere(m));
        kv_u(w, "then_time_ns", m->then_seq ? m->then_time_ns : 0);
        kv_b(w, "then_same_stack", m->then_seq && sview_cs(r->v, m->then_stack_id) == sview_cs(r->v, m->stack_id));
        kv_i(w, "stack", stack_local(w, sview_cs(r->v, m->stack_id)));
        json_end_obj(&w->j);
    }
    json_end_arr(&w->j);
}

static void put_tables(struct hw *w, const struct report_ctx *r)
{
    const struct analysis *a = r->a;
    json_key(&w->j, "tables");
    json_obj(&w->j);
    put_oom_rows(w, r);
    put_leak_rows(w, "leaks", &a->leaks, r);
    kv_u(w, "leaks_total", a->leaks.total);
    kv_u(w, "leaks_hidden_bytes", a->leaks.hidden_bytes);
    put_leak_rows(w, "cached", &a->cached, r);
    put_leak_rows(w, "suppressed", &a->suppressed, r);
    put_leak_rows(w, "mapped", &a->mapped, r);
    put_bad_free_rows(w, r);
    put_teardown_rows(w, r);
    put_call_rows(w, r);
    json_key(&w->j, "peak");
    json_arr(&w->j);
    size_t k = 0, total = 0;
    for (size_t d = 0; d < a->ndevs; d++) {
        total += a->devs[d].ncomp_total;
        for (size_t i = 0; i < a->devs[d].ncomp && k < HT_ROWS; i++) {
            const struct peak_item *p = &a->devs[d].comp[i];
            k++;
            json_obj(&w->j);
            kv_i(w, "device", p->device);
            kv_u(w, "bytes", p->bytes);
            kv_u(w, "count", p->count);
            kv_u(w, "device_peak", a->devs[d].dev->peak_bytes);
            kv_i(w, "stack", stack_local(w, p->cs));
            json_end_obj(&w->j);
        }
    }
    json_end_arr(&w->j);
    kv_u(w, "peak_total", total);
    json_end_obj(&w->j);
}

/* ---- address map ---- */

struct amap {
    const struct snapshot *s;
    const struct kv *sorted; /* by address; val = alloc index */
    size_t n;
};

static uint64_t a_end(const struct snap_alloc *a)
{
    return a->ptr + a->size < a->ptr ? UINT64_MAX : a->ptr + a->size;
}

/* Cells needed with units of `unit` bytes. */
static uint64_t count_cells(const struct amap *m, uint64_t unit)
{
    uint64_t cells = 0, last = 0;
    bool any = false;
    for (size_t i = 0; i < m->n; i++) {
        const struct snap_alloc *a = &m->s->allocs[m->sorted[i].val];
        uint64_t lo = a->ptr / unit, hi = (a_end(a) - 1) / unit;
        if (any && hi <= last)
            continue;
        if (any && lo <= last)
            lo = last + 1;
        if (any && lo > last + 1) {
            uint64_t g = lo - last - 1;
            cells += g <= HM_SMALL_GAP ? g : 1;
        }
        cells += hi - lo + 1;
        last = hi;
        any = true;
        if (cells > HM_CELLS)
            return cells;
    }
    return cells;
}

struct cell {
    uint64_t unit;  /* first unit */
    uint64_t gap;   /* 0: one unit; else a folded run of this many empty units */
    uint64_t bytes, count;
};

static void put_addrmap(struct hw *w, const struct report_ctx *r)
{
    const struct snapshot *s = r->s;
    json_key(&w->j, "addrmap");
    json_arr(&w->j);
    struct kv *buf = xmalloc((s->nallocs ? s->nallocs : 1) * sizeof *buf);
    struct cell *cells = xcalloc(HM_CELLS + 2 * HM_SMALL_GAP + 4, sizeof *cells);
    if (!buf || !cells) {
        w->oom = true;
        goto out;
    }
    for (size_t d = 0; d < r->fr->ndev; d++) {
        const struct frag_dev *fd = &r->fr->dev[d];
        size_t n = 0;
        for (size_t i = 0; i < s->nallocs; i++) {
            const struct snap_alloc *a = &s->allocs[i];
            if (a->device == fd->device && a->size &&
                (a->kind == GL_KIND_DEVICE || a->kind == GL_KIND_POOL))
                buf[n++] = (struct kv){a->ptr, i};
        }
        if (radix_sort(buf, n)) {
            w->oom = true;
            break;
        }
        struct amap m = {s, buf, n};
        uint64_t unit = FRAG_PAGE;
        while (n && count_cells(&m, unit) > HM_CELLS && unit < (1ull << 62))
            unit *= 2;
        /* fill the cells */
        size_t nc = 0;
        bool any = false;
        uint64_t last = 0;
        for (size_t i = 0; i < n && nc <= HM_CELLS; i++) {
            const struct snap_alloc *a = &s->allocs[buf[i].val];
            uint64_t start = a->ptr, end = a_end(a);
            uint64_t lo = start / unit, hi = (end - 1) / unit, u = lo;
            if (any && lo <= last) {
                u = last; /* continues the current cell */
            } else if (any) {
                uint64_t g = lo - last - 1;
                if (g > HM_SMALL_GAP)
                    cells[nc++] = (struct cell){last + 1, g, 0, 0};
                else
                    for (uint64_t e = last + 1; e < lo; e++)
                        cells[nc++] = (struct cell){e, 0, 0, 0};
            }
            for (; u <= hi && nc <= HM_CELLS; u++) {
                if (!(any && u == last))
                    cells[nc++] = (struct cell){u, 0, 0, 0};
                struct cell *c = &cells[nc - 1];
                uint64_t cs = u * unit, ce = cs + unit < cs ? UINT64_MAX : cs + unit;
                uint64_t x = start > cs ? start : cs, y = end < ce ? end : ce;
                if (y > x)
                    c->bytes += y - x;
                c->count++;
            }
            if (!any || hi > last)
                last = hi;
            any = true;
        }
        if (nc > HM_CELLS)
            nc = HM_CELLS;
        json_obj(&w->j);
        kv_i(w, "device", fd->device);
        kv_u(w, "unit", unit);
        json_key(&w->j, "base");
        put_hex(w, n ? (uint64_t)(cells[0].unit * unit) : 0);
        json_key(&w->j, "span_start");
        put_hex(w, fd->span_lo);
        json_key(&w->j, "span_end");
        put_hex(w, fd->span_hi);
        kv_u(w, "address_bytes", fd->addr_bytes);
        kv_u(w, "address_count", fd->addr_count);
        kv_u(w, "pages", fd->pages);
        kv_u(w, "sparse_pages", fd->sparse_pages);
        kv_u(w, "holes", fd->holes);
        kv_u(w, "hole_bytes", fd->hole_bytes);
        kv_u(w, "largest_hole", fd->largest_hole);
        kv_d(w, "fragmentation", fd->headline);
        kv_u(w, "live_bytes", fd->live_bytes);
        kv_b(w, "have_driver", fd->have_driver);
        kv_u(w, "driver_used", fd->driver_used);
        /* cells: unit offset from the first cell, folded gap length, bytes, allocations */
        static const char *const cols[] = {"u", "g", "b", "n"};
        for (int c = 0; c < 4; c++) {
            json_key(&w->j, cols[c]);
            json_arr(&w->j);
            for (size_t i = 0; i < nc; i++) {
                uint64_t v = c == 0 ? cells[i].unit - cells[0].unit
                           : c == 1 ? cells[i].gap : c == 2 ? cells[i].bytes : cells[i].count;
                json_u64(&w->j, v);
            }
            json_end_arr(&w->j);
        }
        json_end_obj(&w->j);
    }
out:
    json_end_arr(&w->j);
    free(buf);
    free(cells);
}

/* ---- several snapshots ---- */

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
        kv_i(w, "stack", stack_local(w, row->k.cs));
        json_end_obj(&w->j);
    }
    json_end_arr(&w->j);
}

static void put_growth(struct hw *w, const struct html_multi *hm)
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
    json_key(&w->j, "snapshots"); /* the columns: number is the snapshot's place, from 1 */
    json_arr(&w->j);
    for (size_t c = 0; c < ncols; c++) {
        const struct msnap *m = &hm->m[cols[c]];
        const struct snap_process *p = &m->s.proc;
        json_obj(&w->j);
        kv_u(w, "number", cols[c] + 1);
        kv_s(w, "path", m->path);
        kv_u(w, "pid", p->pid);
        kv_u(w, "rank", p->rank);
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
        kv_b(w, "suspected_leak", row->monotonic && row->rule < 0);
        kv_i(w, "stack", stack_local(w, row->cs));
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
    json_end_obj(&w->j);
}

/* ---- the page ---- */

static const char page_head[] =
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    /* nothing may be fetched: the page must work offline, from a file */
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
    "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    "<meta name=\"generator\" content=\"gpuleak-report\">\n";

int output_html(struct report_ctx *r, const struct html_multi *hm)
{
    FILE *f = r->out;
    struct hw w = {.r = r, .db = r->db};
    json_init_compact(&w.j, f);
    w.cs_local = xmalloc((r->db->ncs ? r->db->ncs : 1) * sizeof *w.cs_local);
    w.fr_local = xmalloc((r->db->nframes ? r->db->nframes : 1) * sizeof *w.fr_local);
    if (!w.cs_local || !w.fr_local) {
        free(w.cs_local);
        free(w.fr_local);
        return -1;
    }
    memset(w.cs_local, 0xff, (r->db->ncs ? r->db->ncs : 1) * sizeof *w.cs_local);
    memset(w.fr_local, 0xff, (r->db->nframes ? r->db->nframes : 1) * sizeof *w.fr_local);

    fputs(page_head, f);
    fputs("<title>gpuleak report: ", f);
    const char *exe = base_of(r->s->proc.exe.len ? r->s->proc.exe.s : r->path);
    for (const char *p = exe; p && *p; p++) /* text: escape what HTML would read */
        if (*p == '<')
            fputs("&lt;", f);
        else if (*p == '&')
            fputs("&amp;", f);
        else
            fputc(*p, f);
    fprintf(f, " (pid %u)</title>\n<style>\n%s</style>\n</head>\n<body>\n", r->s->proc.pid,
            gl_html_css);
    fputs("<noscript>This report is drawn by JavaScript; enable it to see the charts.</noscript>\n"
          "<div id=\"app\"></div>\n<script type=\"application/json\" id=\"gl-data\">", f);
    json_obj(&w.j);
    kv_s(&w, "format", "gpuleak-html");
    kv_u(&w, "version", 1);
    kv_u(&w, "page_size", FRAG_PAGE);
    put_snapshot(&w, r, r->path);
    put_summary(&w, r->a);
    put_devices(&w, r->a, r->fr);
    put_timeline(&w, r);
    put_flames(&w, r->a);
    put_tables(&w, r);
    put_addrmap(&w, r);
    put_growth(&w, hm);
    json_key(&w.j, "warnings");
    json_arr(&w.j);
    for (size_t i = 0; i < r->nwarnings; i++)
        json_str(&w.j, r->warnings[i]);
    json_end_arr(&w.j);
    json_key(&w.j, "limits");
    json_obj(&w.j);
    kv_u(&w, "points", HT_POINTS);
    kv_u(&w, "flame_div", HF_DIV);
    kv_u(&w, "flame_nodes", HF_NODES);
    kv_u(&w, "cells", HM_CELLS);
    kv_u(&w, "rows", HT_ROWS);
    kv_u(&w, "snapshot_columns", HG_COLS);
    json_end_obj(&w.j);
    put_frames_table(&w);
    json_end_obj(&w.j);
    fputs("</script>\n<script>\n", f);
    fputs(gl_html_js, f);
    fputs("</script>\n</body>\n</html>\n", f);

    bool oom = w.oom;
    free(w.cs_local);
    free(w.fr_local);
    free(w.cs_list);
    free(w.fr_list);
    for (size_t i = 0; i < w.npseudo; i++)
        free(w.pseudo[i]);
    free(w.pseudo);
    return oom ? -1 : 0;
}
