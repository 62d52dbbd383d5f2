/* The OUT OF MEMORY section and summary line of the text report. */
#include "render/text/oom.h"

#include <inttypes.h>
#include <string.h>

#include "analysis/history.h"
#include "analysis/oom.h"
#include "analysis/oomkind.h"
#include "model/stackdb.h"
#include "render/report.h"
#include "render/text/textout.h"
#include "snapshot_format.h"
#include "util/fmt.h"

#define OOM_SHOWN 3 /* the most recent ones in the text */

/* A number with thousands separators, as the classification line gives them. */
static void put_n(FILE *f, uint64_t v)
{
    char buf[32];
    fmt_commas(buf, sizeof buf, v);
    fputs(buf, f);
}

/* Text, then a number with thousands separators: the classification line
 * and PyTorch's view alternate them. */
static void put_text_n(FILE *f, const char *text, uint64_t v)
{
    fputs(text, f);
    put_n(f, v);
}

/* The one line that says what kind of out-of-memory it was, with the
 * numbers its rule compared (analysis/oomkind.h). */
static void put_verdict(FILE *f, const struct oom_facts *x)
{
    struct oom_verdict v = oom_classify(x);
    fputs("    kind: ", f);
    switch (v.kind) {
    case OOM_KIND_FRAGMENTATION:
        put_text_n(f, "fragmentation: PyTorch's reserved - allocated = ", x->reserved);
        put_text_n(f, " - ", x->allocated);
        put_text_n(f, " = ", v.cached);
        put_text_n(f, " bytes >= the ", x->request);
        put_text_n(f, " asked, but its largest free block is ", x->largest_free);
        break;
    case OOM_KIND_SETTING:
        put_text_n(f, "an allocator setting: PyTorch may use ", x->allowed);
        put_text_n(f, " bytes of the device's ", x->total);
        put_text_n(f, " (torch.cuda.set_per_process_memory_fraction), and ", x->free);
        put_text_n(f, " were free for the ", x->request);
        fputs(" asked", f);
        break;
    case OOM_KIND_ELSEWHERE:
        put_text_n(f, "held by other processes or contexts: the driver's used ", v.used);
        put_text_n(f, " - this process's own ", x->own);
        put_text_n(f, " = ", v.elsewhere);
        put_text_n(f, " bytes, at least the ", v.missing);
        fputs(" missing", f);
        break;
    case OOM_KIND_EXCEEDED:
        put_text_n(f, "the request exceeded what was free: ", x->request);
        put_text_n(f, " bytes asked, ", x->free);
        put_text_n(f, " free; this process held ", x->own);
        put_text_n(f, " of the ", v.used);
        put_text_n(f, " in use, ", v.elsewhere);
        fputs(" elsewhere", f);
        break;
    default:
        if (x->total == 0) {
            fputs("not classified: the driver's free memory is not known", f);
        } else {
            put_text_n(f, "not classified: ", x->free);
            put_text_n(f, " bytes were free for the ", x->request);
            fputs(" asked (not in one piece, or over a pool's limit)", f);
        }
        break;
    }
    fputc('\n', f);
}

/* The process had PyTorch's CUDA allocator loaded (libc10_cuda.so): a
 * failed cudaMalloc may be its segment's, before it retries. */
static bool torch_loaded(const struct snapshot *s)
{
    for (size_t i = 0; i < s->nmodules; i++) {
        const struct snap_str *p = &s->modules[i].path;
        const char *base = p->s;
        for (size_t k = 0; k < p->len; k++)
            if (p->s[k] == '/')
                base = p->s + k + 1;
        if ((size_t)(p->s + p->len - base) >= 11 && strncmp(base, "libc10_cuda", 11) == 0)
            return true;
    }
    return false;
}

/* PyTorch's out-of-memory snapshot (TORCH_OOM): what PyTorch asked for
 * when it gave up, its view then, and the kind. */
static void torch_oom(struct report_ctx *r)
{
    struct oom_facts x;
    if (!oom_torch_facts(r->s, &x))
        return;
    FILE *f = r->out;
    fputs("\nPyTorch raised torch.OutOfMemoryError on ", f);
    put_where(f, r->s->torch_oom.device);
    fputs(", asking CUDA for ", f);
    put_bytes(f, x.request);
    fputs("\nafter freeing its cache and trying again; the driver: ", f);
    put_bytes(f, x.free);
    fputs(" free", f);
    if (x.total != 0) {
        fputs(" of ", f);
        put_bytes(f, x.total);
    }
    fputc('\n', f);
    if (x.torch) {
        put_text_n(f, "    PyTorch then: reserved ", x.reserved);
        put_text_n(f, ", allocated ", x.allocated);
        put_text_n(f, ", largest free block ", x.largest_free);
        fputs(" bytes (its view, asked at the error)\n", f);
    }
    put_verdict(f, &x);
}

void text_oom_summary(struct report_ctx *r)
{
    uint64_t n = oom_failed_count(r->s);
    if (n == 0)
        return;
    FILE *f = r->out;
    put_color(r, TC_RED);
    fprintf(f, "    %-18s", "out of memory:");
    put_count(f, n, "failed allocation");
    put_color_end(r);
    fputc('\n', f);
}

static void oom_event(struct report_ctx *r, const struct hist_mark *m)
{
    FILE *f = r->out;
    fputc('\n', f);
    put_api(f, m->api);
    fputs(" of ", f);
    put_color(r, TC_RED);
    put_bytes(f, m->size);
    put_color_end(r);
    fputs(" on ", f);
    put_where(f, m->device);
    fputs(" failed at ", f);
    put_secs(f, m->time_ns);
    fprintf(f, " (seq %" PRIu64 ")\n", m->seq);
    if (m->mem_total == 0) {
        fputs("    the driver's free memory is not known\n", f);
    } else {
        fputs("    the driver: ", f);
        put_bytes(f, m->mem_free);
        fputs(" free of ", f);
        put_bytes(f, m->mem_total);
        if (m->size > m->mem_total) {
            fputs(": more than the device has\n", f);
        } else if (m->size > m->mem_free) {
            fputs(": ", f);
            put_human(f, m->size - m->mem_free);
            fputs(" short\n", f);
        } else {
            fputs(": enough free in all, so not in one piece or over a limit\n", f);
        }
        uint64_t other = oom_elsewhere(m);
        fputs("    in use: ", f);
        put_human(f, m->mem_total - (m->mem_free < m->mem_total ? m->mem_free : m->mem_total));
        fputs(" = this process's live allocations ", f);
        put_human(f, m->live_bytes);
        fputs(" + ", f);
        put_human(f, other);
        fputs(" elsewhere\n", f);
        if (other)
            fputs("    (elsewhere: other processes, CUDA's own context, what memory pools keep in reserve,\n"
                  "    memory gpuleak could not see)\n", f);
    }
    /* In PyTorch's own out-of-memory snapshot its verdict, above, is the
     * one: these calls failed before it freed its cache. */
    if (!r->s->torch_oom.present) {
        struct oom_facts x;
        oom_mark_facts(m, &x);
        put_verdict(f, &x);
        if (torch_loaded(r->s))
            fputs("    (PyTorch frees its cache and tries again after this; its own out-of-memory snapshot,\n"
                  "    taken if it raises, says whether its cache was fragmented)\n",
                  f);
    }
    put_cs(r, "    ", sview_cs(r->v, m->stack_id));
    /* Caching allocators free what they cache and ask again: a failure the
     * program got past.  Only the size says it is the same request. */
    if (m->then_seq) {
        fputs("    then the same size was allocated at ", f);
        put_secs(f, m->then_time_ns);
        fprintf(f, " (seq %" PRIu64 ")%s\n", m->then_seq,
                sview_cs(r->v, m->then_stack_id) == sview_cs(r->v, m->stack_id)
                    ? ", from the same stack: the request succeeded when tried again"
                    : ", from another stack");
    } else {
        fputs("    nothing of that size was allocated after it (in the history)\n", f);
    }
}

void text_oom(struct report_ctx *r)
{
    uint64_t failed = oom_failed_count(r->s);
    const struct history *h = r->h;
    size_t noom = 0;
    for (size_t i = 0; h && h->present && i < h->nmarks; i++)
        noom += oom_is_mark(&h->marks[i]);
    if (failed == 0 && noom == 0 && !r->s->torch_oom.present)
        return;
    FILE *f = r->out;
    put_title(r, "OUT OF MEMORY");
    put_count(f, failed, "allocation");
    fputs(" failed for lack of memory", f);
    const char *sep = ": ";
    for (size_t i = 0; i < r->s->ndevices; i++) {
        const struct snap_device *d = &r->s->devices[i];
        if (d->failed_count == 0)
            continue;
        fputs(sep, f);
        sep = ", ";
        fprintf(f, "%" PRIu64 " on ", d->failed_count);
        put_where(f, d->device);
    }
    fputs(".\n", f);
    torch_oom(r);
    if (noom == 0 && failed == 0) { /* PyTorch's limit: no CUDA call failed */
        if (r->s->proc.reason == GL_REASON_OOM)
            fputs("\nThis snapshot was taken at PyTorch's error: what was live then is listed below.\n", f);
        return;
    }
    if (noom == 0) {
        fputs("The history holds none of them (it is off, or they were before the events it keeps).\n", f);
        return;
    }
    size_t shown = noom < OOM_SHOWN ? noom : OOM_SHOWN;
    fprintf(f, "%s", shown == noom ? "" : "The most recent:\n");
    for (size_t i = 0, k = 0; i < h->nmarks; i++) {
        if (!oom_is_mark(&h->marks[i]))
            continue;
        if (k++ >= noom - shown)
            oom_event(r, &h->marks[i]);
    }
    if (shown < noom)
        fprintf(f, "\n(%zu earlier ones in the JSON report's out_of_memory)\n", noom - shown);
    if (r->s->proc.reason == GL_REASON_OOM)
        fputs(r->s->torch_oom.present
                  ? "\nThis snapshot was taken at PyTorch's error: what was live then is listed below.\n"
                  : "\nThis snapshot was taken at the last one: what was live then is listed below.\n",
              f);
}
