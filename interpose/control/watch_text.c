#include "control/watch_text.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/config.h"
#include "base/internal.h"
#include "base/modules.h"
#include "capture/pyframes.h"
#include "state/stack_table.h"

/* Sites written, largest live bytes first: what a terminal can show, and
 * the growth `gpuleak top` computes between two reads. */
#define LIVE_MAX_SITES 256

/* ---- a growing text buffer ---------------------------------------------- */

/* Room for n more bytes and a NUL; false (and t->failed) without it. */
static bool reserve(struct gl_watch_text *t, size_t n)
{
    if (t->failed)
        return false;
    if (t->s != NULL && n < t->cap - t->len)
        return true;
    size_t cap = t->cap ? t->cap * 2 : 16384;
    while (cap - t->len <= n)
        cap *= 2;
    char *s = realloc(t->s, cap);
    if (s == NULL) {
        t->failed = true;
        return false;
    }
    t->s = s;
    t->cap = cap;
    return true;
}

__attribute__((format(printf, 2, 3))) static void put(struct gl_watch_text *t, const char *fmt, ...)
{
    for (size_t want = 0; reserve(t, want);) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = true;
            return;
        }
        if ((size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        want = (size_t)n;
    }
}

/* n bytes of text from elsewhere, each byte in `bad` written as '?': a
 * field of a line.  Byte by byte, not through put(): paths and names are
 * most of the live file's bytes (a PyTorch process maps hundreds of
 * modules), and a vsnprintf a byte cost ~10 M instructions a write. */
static void put_field(struct gl_watch_text *t, const char *text, size_t n, const char *bad)
{
    if (!reserve(t, n))
        return;
    for (size_t i = 0; i < n; i++)
        t->s[t->len + i] = strchr(bad, text[i]) != NULL ? '?' : text[i];
    t->len += n;
    t->s[t->len] = '\0';
}

static void put_hex(struct gl_watch_text *t, const uint8_t *bytes, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    if (!reserve(t, 2 * n))
        return;
    for (size_t i = 0; i < n; i++) {
        t->s[t->len++] = digits[bytes[i] >> 4];
        t->s[t->len++] = digits[bytes[i] & 15];
    }
    t->s[t->len] = '\0';
}

struct gl_watch_text *gl_watch_text_reuse(struct gl_watch_text *t)
{
    t->len = 0;
    t->failed = false;
    return t;
}

/* ---- the contents ------------------------------------------------------- */

static int by_bytes_desc(const void *a, const void *b)
{
    const struct gl_watch_site *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    uint32_t ix = x->stack ? x->stack->id : 0, iy = y->stack ? y->stack->id : 0;
    return ix < iy ? -1 : ix > iy;
}

void gl_watch_sort_sites(struct gl_watch_copy *c)
{
    qsort(c->sites, c->nsites, sizeof *c->sites, by_bytes_desc);
}

static void put_path(struct gl_watch_text *t, const char *path)
{
    /* The last field of its line: only a newline would break the format. */
    put_field(t, path, strlen(path), "\n");
}

/* The Python frames the stacks name (py:ID), collected for their pyframe
 * lines. */
struct pyids {
    uint32_t *ids;
    size_t n, cap;
};

static void note_pyid(struct gl_watch_text *t, struct pyids *py, uint32_t id)
{
    if (py->n == py->cap) {
        size_t cap = py->cap ? py->cap * 2 : 64;
        uint32_t *more = realloc(py->ids, cap * sizeof *more);
        if (more == NULL) {
            t->failed = true; /* a py:ID without its line: not written */
            return;
        }
        py->ids = more;
        py->cap = cap;
    }
    py->ids[py->n++] = id;
}

/* "stack ID FRAME...": a return address in hex, or py:ID for a Python
 * frame (docs/live.md, version 2). */
static void put_stack(struct gl_watch_text *t, const struct gl_stack *st, struct pyids *py)
{
    put(t, "stack %u", st->id);
    for (uint32_t k = 0; k < st->depth; k++) {
        uint64_t pc = st->pcs[k];
        if (gl_pc_is_pyframe(pc)) {
            put(t, " py:%u", (unsigned)(pc & 0xffffffffu));
            note_pyid(t, py, (uint32_t)(pc & 0xffffffffu));
        } else {
            put(t, " %llx", (unsigned long long)pc);
        }
    }
    put(t, "\n");
}

static int by_id_desc(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

static void put_pyframe(uint32_t id, uint32_t line, const char *file, size_t file_len, const char *func,
                        size_t func_len, void *arg)
{
    (void)file_len;
    struct gl_watch_text *t = arg;
    /* One token: a name never has a space or a newline, but a recorded one
     * (PyTorch's) is text from elsewhere. */
    put(t, "pyframe %u %u ", id, line);
    if (func_len == 0)
        put(t, "?");
    put_field(t, func, func_len, " \n");
    put(t, " ");
    put_path(t, file); /* NUL-terminated at file_len (pyframes.c's key) */
    put(t, "\n");
}

/* "pyframe ID LINE FUNCTION FILE" for each Python frame the stacks named. */
static void put_pyframes(struct gl_watch_text *t, struct pyids *py)
{
    if (py->n > 1) /* (qsort takes no NULL array, even empty) */
        qsort(py->ids, py->n, sizeof *py->ids, by_id_desc);
    size_t n = 0;
    for (size_t i = 0; i < py->n; i++)
        if (n == 0 || py->ids[n - 1] != py->ids[i])
            py->ids[n++] = py->ids[i];
    if (n > 0)
        gl_py_for_ids(py->ids, n, put_pyframe, t);
}

/* gl_watch_live_text's own heap scratch, reachable from here for the same
 * reason as the tick's buffers (watch.c): a leak checker run at exit while
 * the writer thread is mid-tick must not call it lost. */
static struct {
    uint32_t *seen;
    struct pyids py;
    struct gl_module_list mods;
} scratch;

static void scratch_free(void)
{
    free(scratch.seen);
    free(scratch.py.ids);
    gl_modules_free(&scratch.mods);
    memset(&scratch, 0, sizeof scratch);
}

void gl_watch_live_text(struct gl_watch_text *t, const struct gl_watch_copy *c)
{
    put(t, "gpuleak-live 2\npid %d\ntime_ns %llu\nuptime_ns %llu\n", (int)getpid(),
        (unsigned long long)gl_unix_ns(),
        (unsigned long long)(gl_mono_ns() - atomic_load(&gl_start_mono_ns)));
    if (gl_config.mode == GL_MODE_LIGHT) { /* sites are sampled stacks: top scales them */
        const struct gl_stack *u = gl_stack_unsampled();
        put(t, "sampling %llu %u\n", (unsigned long long)gl_config.sample_bytes, u != NULL ? u->id : 0u);
    }
    for (size_t i = 0; i < c->ndevices; i++) {
        const struct gl_device_copy *d = &c->devices[i];
        put(t,
            "device %d live_bytes %llu live_count %llu peak_bytes %llu peak_time_ns %llu "
            "alloc_count %llu free_count %llu failed_count %llu\n",
            (int)d->device, (unsigned long long)d->live_bytes, (unsigned long long)d->live_count,
            (unsigned long long)d->peak_bytes, (unsigned long long)d->peak_time_ns,
            (unsigned long long)d->alloc_count, (unsigned long long)d->free_count,
            (unsigned long long)d->failed_count);
    }
    size_t nsites = c->nsites < LIVE_MAX_SITES ? c->nsites : LIVE_MAX_SITES;
    for (size_t i = 0; i < nsites; i++) {
        const struct gl_watch_site *s = &c->sites[i];
        put(t, "site %u %d %llu %llu\n", s->stack ? s->stack->id : 0u, (int)s->device,
            (unsigned long long)s->bytes, (unsigned long long)s->count);
    }
    if (c->sites_truncated || c->nsites > nsites)
        put(t, "sites_left_out %zu\n", c->nsites - nsites);
    for (size_t i = 0; i < c->nooms; i++) {
        const struct gl_watch_oom *o = &c->ooms[i];
        put(t, "oom %llu %d %llu %u\n", (unsigned long long)o->time_ns, (int)o->device,
            (unsigned long long)o->size, o->stack ? o->stack->id : 0u);
    }
    put(t, "oom_total %llu\n", (unsigned long long)c->oom_total);
    /* The stacks named above, each once (ids are unique; a site per device
     * may repeat one), then the Python frames and the modules their frames
     * are in. */
    uint32_t *seen = scratch.seen = calloc(nsites + c->nooms + 1, sizeof *seen);
    struct pyids *py = &scratch.py;
    size_t nseen = 0;
    for (size_t i = 0; i < nsites + c->nooms; i++) {
        const struct gl_stack *st = i < nsites ? c->sites[i].stack : c->ooms[i - nsites].stack;
        if (st == NULL || seen == NULL)
            continue;
        bool dup = false;
        for (size_t k = 0; k < nseen && !dup; k++)
            dup = seen[k] == st->id;
        if (dup)
            continue;
        seen[nseen++] = st->id;
        put_stack(t, st, py);
    }
    put_pyframes(t, py);
    struct gl_module_list *mods = &scratch.mods;
    if (gl_modules_collect(mods) == 0) {
        for (size_t i = 0; i < mods->count; i++) {
            const struct gl_module *m = &mods->items[i];
            put(t, "module %llx %llx %llx ", (unsigned long long)m->start, (unsigned long long)m->end,
                (unsigned long long)m->bias);
            if (m->build_id_len == 0)
                put(t, "-");
            put_hex(t, m->build_id, m->build_id_len);
            put(t, " ");
            put_path(t, m->path ? m->path : "");
            put(t, "\n");
        }
    }
    scratch_free();
    put(t, "end\n");
}

/* The labels every sample of this process carries: pid, rank (%r's rule,
 * as configured) and host (gethostname, as snapshots record it, so that a
 * query names the host merge names), as "pid=\"N\",rank=\"R\",host=\"H\"".
 * The host is escaped as the text format wants (\\, \", \n). */
static void process_labels(char *buf, size_t size, uint32_t rank)
{
    char host[256], esc[2 * sizeof host];
    if (gethostname(host, sizeof host) != 0)
        host[0] = '\0';
    host[sizeof host - 1] = '\0';
    size_t n = 0;
    for (const char *c = host; *c; c++) {
        if (*c == '\\' || *c == '"' || *c == '\n')
            esc[n++] = '\\';
        esc[n++] = *c == '\n' ? 'n' : *c;
    }
    esc[n] = '\0';
    snprintf(buf, size, "pid=\"%d\",rank=\"%u\",host=\"%s\"", (int)getpid(), rank, esc);
}

/* Prometheus' text format (version 0.0.4), which node-exporter's textfile
 * collector reads: HELP and TYPE name each family as its samples are
 * named, a counter's with _total.  (OpenMetrics' "# TYPE x counter" over
 * samples "x_total", written before issue 38, left that collector with
 * untyped families that had lost their help.)  One sample per device
 * (host memory is device "host"). */
void gl_watch_metrics_text(struct gl_watch_text *t, const struct gl_watch_copy *c, uint32_t rank)
{
    static const struct {
        const char *name, *type, *help;
        size_t field; /* offset in gl_device_copy */
    } fams[] = {
        {"gpuleak_live_bytes", "gauge", "Memory allocated through CUDA and not freed yet",
         offsetof(struct gl_device_copy, live_bytes)},
        {"gpuleak_live_allocations", "gauge", "Allocations not freed yet",
         offsetof(struct gl_device_copy, live_count)},
        {"gpuleak_peak_bytes", "gauge", "Highest gpuleak_live_bytes so far",
         offsetof(struct gl_device_copy, peak_bytes)},
        {"gpuleak_allocations_total", "counter", "Allocations made",
         offsetof(struct gl_device_copy, alloc_count)},
        {"gpuleak_frees_total", "counter", "Allocations freed",
         offsetof(struct gl_device_copy, free_count)},
        {"gpuleak_failed_allocations_total", "counter", "Allocations CUDA refused (out of memory)",
         offsetof(struct gl_device_copy, failed_count)},
    };
    char labels[640];
    process_labels(labels, sizeof labels, rank);
    for (size_t f = 0; f < sizeof fams / sizeof fams[0]; f++) {
        put(t, "# HELP %s %s.\n", fams[f].name, fams[f].help);
        put(t, "# TYPE %s %s\n", fams[f].name, fams[f].type);
        for (size_t i = 0; i < c->ndevices; i++) {
            const struct gl_device_copy *d = &c->devices[i];
            uint64_t v;
            memcpy(&v, (const char *)d + fams[f].field, sizeof v);
            char dev[16];
            if (d->device < 0)
                snprintf(dev, sizeof dev, "host");
            else
                snprintf(dev, sizeof dev, "%d", (int)d->device);
            put(t, "%s{device=\"%s\",%s} %llu\n", fams[f].name, dev, labels, (unsigned long long)v);
        }
    }
}

uint64_t gl_watch_fingerprint(const struct gl_watch_copy *c)
{
    uint64_t h = c->oom_total;
    for (size_t i = 0; i < c->ndevices; i++)
        h = h * 1000003u ^ (c->devices[i].alloc_count * 31u + c->devices[i].free_count + c->devices[i].live_bytes);
    return h;
}
