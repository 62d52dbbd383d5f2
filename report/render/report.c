/* Warnings that head the report.  Every stack has been symbolized by then
 * (sview_init), so module problems are already known. */
#include "render/report.h"

#include "analysis/analyze.h"
#include "analysis/frag.h"
#include "analysis/history.h"
#include "model/snap_read.h"
#include "model/stackdb.h"
#include "model/suppress.h"
#include "model/symbolize.h"
#include "util/xalloc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void warn(struct report_ctx *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void warn(struct report_ctx *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *line = NULL;
    int n = vasprintf(&line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    char **nw = xrealloc(r->warnings, (r->nwarnings + 1) * sizeof *nw);
    if (!nw) {
        free(line);
        return;
    }
    r->warnings = nw;
    r->warnings[r->nwarnings++] = line;
}

void report_prepare(struct report_ctx *r)
{
    const struct analysis *a = r->a;
    for (size_t i = 0; i < r->s->nmodules; i++) {
        const char *note = sym_module_note(r->sy, i);
        if (note)
            warn(r, "%s", note);
    }
    if (r->s->unknown_records)
        warn(r, "%zu record(s) of unknown type skipped (snapshot written by a newer gpuleak?)",
             r->s->unknown_records);
    if (r->s->long_entries)
        warn(r, "%zu entries carry fields this reader does not know; they were ignored",
             r->s->long_entries);
    if (a->orphan_peaks)
        warn(r, "%zu peak entries name a device without device counters; not shown",
             a->orphan_peaks);
    if (r->h && r->h->dropped_devices)
        warn(r, "history events of more than 256 devices; %zu ignored", r->h->dropped_devices);
}

void report_ctx_free(struct report_ctx *r)
{
    for (size_t i = 0; i < r->nwarnings; i++)
        free(r->warnings[i]);
    free(r->warnings);
    r->warnings = NULL;
    r->nwarnings = 0;
}

const char *rank_name(const struct snap_process *p)
{
    static char buf[4][40];
    static unsigned next;
    char *b = buf[next++ % 4];
    if (p->flags & GL_SNAP_F_NO_RANK)
        snprintf(b, sizeof buf[0], "no rank (pid %u)", p->pid);
    else
        snprintf(b, sizeof buf[0], "rank %u", p->rank);
    return b;
}
