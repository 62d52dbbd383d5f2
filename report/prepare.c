/* Symbolize-then-print: resolving every shown stack first means warnings
 * about unusable modules can head the report, and the writers only read the
 * symbolizer's cache. */
#include "report.h"

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
    char **nw = realloc(r->warnings, (r->nwarnings + 1) * sizeof *nw);
    if (!nw) {
        free(line);
        return;
    }
    r->warnings = nw;
    r->warnings[r->nwarnings++] = line;
}

static void resolve_stack(struct report_ctx *r, uint32_t id)
{
    const struct snap_stack *st = snap_find_stack(r->s, id);
    if (!st)
        return;
    const uint64_t *pcs = snap_stack_pcs(r->s, st);
    for (uint32_t i = 0; i < st->depth; i++) {
        size_t n;
        sym_pc(r->sy, pcs[i], &n);
    }
}

void report_prepare(struct report_ctx *r)
{
    const struct analysis *a = r->a;
    for (size_t i = 0; i < a->ngroups; i++)
        resolve_stack(r, a->groups[i].stack_id);
    for (size_t d = 0; d < a->ndevs; d++)
        for (size_t i = 0; i < a->devs[d].ncomp; i++)
            resolve_stack(r, a->devs[d].comp[i].stack_id);

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
}

void report_ctx_free(struct report_ctx *r)
{
    for (size_t i = 0; i < r->nwarnings; i++)
        free(r->warnings[i]);
    free(r->warnings);
    r->warnings = NULL;
    r->nwarnings = 0;
}
