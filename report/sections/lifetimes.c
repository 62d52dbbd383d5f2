/* The ALLOCATION LIFETIMES section (--sections lifetimes): how long
 * allocations live, in classes of powers of ten of the time -- those the
 * history saw allocated and freed, by the time between the two, and the
 * live ones by their age at the snapshot.  A life of microseconds is a
 * cudaMalloc and a cudaFree a cache or a buffer kept across steps saves
 * (TEMPORARY ALLOCATIONS counts only those freed before any other call);
 * old live memory was allocated at the start, young live memory since.
 * Exact in a sampled snapshot too: light mode records every allocation,
 * free and time, and samples only stacks.  The whole section is this file:
 * its analysis, row, text, JSON and part of the HTML page (docs/reporter.md,
 * docs/json-output.md, docs/html-report.md). */
#include <stdlib.h>

#include "render/html/hw.h"
#include "render/json/json.h"
#include "render/report.h"
#include "render/sections.h"
#include "render/text/textout.h"
#include "snapshot_format.h"
#include "util/fmt.h"
#include "util/sat.h"
#include "util/sort.h"
#include "util/xalloc.h"

/* Classes: under 10 us, then each power of ten of ns up to 100,000 s, then
 * 100,000 s (28 hours) or more: jobs run for days. */
#define NCLASS 12
#define FIRST_BOUND_NS 10000ULL

static const char *const class_name[NCLASS] = {
    "under 10 us",    "10 us - 100 us", "100 us - 1 ms",    "1 ms - 10 ms",
    "10 ms - 100 ms", "100 ms - 1 s",   "1 s - 10 s",       "10 s - 100 s",
    "100 s - 1000 s", "1000 s - 10000 s", "10000 s - 100000 s", "100000 s or more",
};

/* Counts and bytes by class, and in all. */
struct by_class {
    uint64_t count[NCLASS], bytes[NCLASS];
    uint64_t all_count, all_bytes;
};

struct lifetimes {
    bool history;          /* the snapshot has events */
    struct by_class freed; /* allocated and freed in the history: by life */
    uint64_t older_frees;  /* frees of allocations made before the history */
    struct by_class live;  /* live at the snapshot: by age */
};

/* The class of a time: the first whose upper bound is above it. */
static unsigned class_of(uint64_t ns)
{
    unsigned k = 0;
    for (uint64_t bound = FIRST_BOUND_NS; k + 1 < NCLASS && ns >= bound; bound *= 10)
        k++;
    return k;
}

/* Class k's lower bound in ns (0 for the first). */
static uint64_t class_low(unsigned k)
{
    uint64_t low = k ? FIRST_BOUND_NS : 0;
    for (unsigned i = 1; i < k; i++)
        low *= 10;
    return low;
}

static void add(struct by_class *c, uint64_t ns, uint64_t bytes)
{
    unsigned k = class_of(ns);
    c->count[k]++;
    c->bytes[k] = sat_add(c->bytes[k], bytes);
    c->all_count++;
    c->all_bytes = sat_add(c->all_bytes, bytes);
}

/* An allocation or a free of the history, where its address and device
 * make it one allocation's. */
struct ev {
    uint64_t ptr, seq, time_ns, size;
    int32_t device;
    bool is_free;
};

/* By allocation (device, address), then in history order. */
static int by_place(const void *a, const void *b)
{
    const struct ev *x = a, *y = b;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    if (x->ptr != y->ptr)
        return x->ptr < y->ptr ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Pairs each free of the history with the allocation just before it at the
 * same place (an address is reused only once freed): its life is the time
 * between them, its bytes the allocation's.  0, or -1 out of memory. */
static int freed_lives(const struct snapshot *s, struct lifetimes *lt)
{
    struct ev *e = xmalloc((s->nevents ? s->nevents : 1) * sizeof *e);
    if (e == NULL)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < s->nevents; i++) {
        const struct snap_event *x = &s->events[i];
        if (x->type == GL_EV_ALLOC || x->type == GL_EV_FREE)
            e[n++] = (struct ev){.ptr = x->ptr, .seq = x->seq, .time_ns = x->time_ns, .size = x->size,
                                 .device = x->device, .is_free = x->type == GL_EV_FREE};
    }
    sort_array(e, n, sizeof *e, by_place);
    for (size_t i = 0; i < n; i++) {
        if (!e[i].is_free)
            continue;
        const struct ev *a = i ? &e[i - 1] : NULL;
        if (a && !a->is_free && a->device == e[i].device && a->ptr == e[i].ptr)
            add(&lt->freed, e[i].time_ns > a->time_ns ? e[i].time_ns - a->time_ns : 0, a->size);
        else
            lt->older_frees++;
    }
    free(e);
    return 0;
}

static int build(const struct section_inputs *in, struct section_data *d, void **state)
{
    (void)d;
    const struct snapshot *s = in->v->s;
    struct lifetimes *lt = xcalloc(1, sizeof *lt);
    if (lt == NULL)
        return -1;
    lt->history = s->nevents > 0;
    if (freed_lives(s, lt) != 0) {
        free(lt);
        return -1;
    }
    uint64_t now = s->proc.snapshot_mono_ns;
    for (size_t i = 0; i < s->nallocs; i++) {
        const struct snap_alloc *a = &s->allocs[i];
        add(&lt->live, now > a->time_ns ? now - a->time_ns : 0, a->size);
    }
    *state = lt;
    return 0;
}

static void drop(struct section_data *d, void *state)
{
    (void)d;
    free(state);
}

static void text(struct report_ctx *r);
static void json(struct report_ctx *r, struct json *j);
static void html(struct hw *w, const struct report_ctx *r);

REPORT_SECTION(lifetimes_row, .order = 57, .name = "lifetimes", .build = build, .free = drop, .text = text,
               .json = json, .html = html);

/* "  1 ms - 10 ms   12   49,152   0   0": one class's line of the table. */
static void text_line(FILE *f, const char *name, uint64_t fc, uint64_t fb, uint64_t lc, uint64_t lb)
{
    char c1[32], b1[32], c2[32], b2[32];
    fmt_commas(c1, sizeof c1, fc);
    fmt_commas(b1, sizeof b1, fb);
    fmt_commas(c2, sizeof c2, lc);
    fmt_commas(b2, sizeof b2, lb);
    fprintf(f, "  %-20s %10s %16s %10s %16s\n", name, c1, b1, c2, b2);
}

/* Nothing when there is nothing to class: no history and nothing live. */
static void text(struct report_ctx *r)
{
    const struct lifetimes *lt = section_state(r, &lifetimes_row);
    if (lt == NULL || (lt->freed.all_count == 0 && lt->live.all_count == 0))
        return;
    FILE *f = r->out;
    put_title(r, "ALLOCATION LIFETIMES");
    fputs("How long allocations live: those allocated and freed in the history, by\n"
          "the time between the two, and those live at the snapshot, by their age.\n"
          "Short lives are allocation calls a cache, or a buffer kept across steps,\n"
          "would save; old live memory was allocated early, young live memory since.\n", f);
    fprintf(f, "  %-20s %10s %16s %10s %16s\n", "lifetime, or age", "freed", "freed bytes", "live", "live bytes");
    for (unsigned k = 0; k < NCLASS; k++)
        if (lt->freed.count[k] || lt->live.count[k])
            text_line(f, class_name[k], lt->freed.count[k], lt->freed.bytes[k], lt->live.count[k],
                      lt->live.bytes[k]);
    text_line(f, "all", lt->freed.all_count, lt->freed.all_bytes, lt->live.all_count, lt->live.all_bytes);
    if (!lt->history)
        fputs("(no history in this snapshot: no lives of freed allocations)\n", f);
    else if (lt->older_frees) {
        fputc('(', f);
        put_count(f, lt->older_frees, "free");
        fputs(" of allocations made before the history began: lives unknown)\n", f);
    }
}

/* {"count", "bytes", "classes": [{"min_ns", "max_ns", "count", "bytes"}]}:
 * the classes that hold something, max_ns exclusive, null for the last. */
static void json_classes(struct json *j, const char *key, const struct by_class *c)
{
    json_key(j, key);
    json_obj(j);
    json_key(j, "count"); json_u64(j, c->all_count);
    json_key(j, "bytes"); json_u64(j, c->all_bytes);
    json_key(j, "classes");
    json_arr(j);
    for (unsigned k = 0; k < NCLASS; k++) {
        if (!c->count[k])
            continue;
        json_obj(j);
        json_key(j, "min_ns"); json_u64(j, class_low(k));
        json_key(j, "max_ns");
        if (k + 1 < NCLASS)
            json_u64(j, class_low(k + 1));
        else
            json_null(j);
        json_key(j, "count"); json_u64(j, c->count[k]);
        json_key(j, "bytes"); json_u64(j, c->bytes[k]);
        json_end_obj(j);
    }
    json_end_arr(j);
    json_end_obj(j);
}

static void json(struct report_ctx *r, struct json *j)
{
    const struct lifetimes *lt = section_state(r, &lifetimes_row);
    static const struct lifetimes none;
    if (lt == NULL)
        lt = &none;
    json_key(j, "allocation_lifetimes");
    json_obj(j);
    json_key(j, "history"); json_bool(j, lt->history);
    json_classes(j, "freed", &lt->freed);
    json_key(j, "frees_before_history"); json_u64(j, lt->older_frees);
    json_classes(j, "live", &lt->live);
    json_end_obj(j);
}

/* {"count", "bytes"}: one side's totals, the text's line "all". */
static void html_totals(struct hw *w, const char *key, const struct by_class *c)
{
    json_key(&w->j, key);
    json_obj(&w->j);
    kv_u(w, "count", c->all_count);
    kv_u(w, "bytes", c->all_bytes);
    json_end_obj(&w->j);
}

/* The page's "lifetimes" member: the text's table as data, one row per
 * class that holds something on either side (the text's lines, its names),
 * with the JSON's bounds (max_ns exclusive, null for the last), then the
 * totals and what the text's last line says.  All zeros where nothing was
 * built, as the JSON's member. */
static void html(struct hw *w, const struct report_ctx *r)
{
    const struct lifetimes *lt = section_state(r, &lifetimes_row);
    static const struct lifetimes none;
    if (lt == NULL)
        lt = &none;
    json_key(&w->j, "lifetimes");
    json_obj(&w->j);
    kv_b(w, "history", lt->history);
    kv_u(w, "frees_before_history", lt->older_frees);
    html_totals(w, "freed", &lt->freed);
    html_totals(w, "live", &lt->live);
    json_key(&w->j, "classes");
    json_arr(&w->j);
    for (unsigned k = 0; k < NCLASS; k++) {
        if (!lt->freed.count[k] && !lt->live.count[k])
            continue;
        json_obj(&w->j);
        kv_s(w, "name", class_name[k]);
        kv_u(w, "min_ns", class_low(k));
        json_key(&w->j, "max_ns");
        if (k + 1 < NCLASS)
            json_u64(&w->j, class_low(k + 1));
        else
            json_null(&w->j);
        kv_u(w, "freed", lt->freed.count[k]);
        kv_u(w, "freed_bytes", lt->freed.bytes[k]);
        kv_u(w, "live", lt->live.count[k]);
        kv_u(w, "live_bytes", lt->live.bytes[k]);
        json_end_obj(&w->j);
    }
    json_end_arr(&w->j);
    json_end_obj(&w->j);
}
