/* The OUT OF MEMORY section and summary line of the text report. */
#include "render/text/oom.h"

#include <inttypes.h>

#include "analysis/history.h"
#include "analysis/oom.h"
#include "model/stackdb.h"
#include "render/report.h"
#include "render/text/textout.h"
#include "snapshot_format.h"

#define OOM_SHOWN 3 /* the most recent ones in the text */

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
    if (failed == 0 && noom == 0)
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
        fputs("\nThis snapshot was taken at the last one: what was live then is listed below.\n", f);
}
