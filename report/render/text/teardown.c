/* The text report's memory left to teardown: summary line and section. */
#include "render/text/teardown.h"

#include <inttypes.h>

#include "analysis/teardown.h"
#include "model/stackdb.h"
#include "model/suppress.h"
#include "render/report.h"
#include "render/text/textout.h"
#include "snapshot_format.h"
#include "util/sat.h"

void text_torn_site(struct report_ctx *r, unsigned kind, int32_t device, unsigned api, unsigned teardown)
{
    FILE *f = r->out;
    put_kind_where(f, kind, device);
    fputs(" (", f);
    put_api(f, api);
    fputs("), released by ", f);
    put_api(f, teardown);
}

void text_torn_rule(struct report_ctx *r, int32_t rule)
{
    if (rule >= 0) {
        fputs(", held by ", r->out);
        put_str(r->out, r->sup->rules[rule].name);
    }
}

void text_torn_summary(struct report_ctx *r)
{
    struct torn_groups t;
    if (torn_build(r->v, &t) != 0 || t.n == 0) {
        torn_free(&t);
        return;
    }
    FILE *f = r->out;
    if (t.leaked_bytes)
        put_color(r, TC_RED);
    fprintf(f, "    %-18s", "until teardown:");
    put_bytes(f, t.bytes);
    fputs(" in ", f);
    put_count(f, t.count, "allocation");
    fputs(" from ", f);
    put_count(f, t.n, "stack");
    put_color_end(r);
    fputc('\n', f);
    torn_free(&t);
}

void text_torn(struct report_ctx *r, size_t top)
{
    struct torn_groups t;
    if (torn_build(r->v, &t) != 0 || t.n == 0) {
        torn_free(&t);
        return;
    }
    FILE *f = r->out;
    put_title(r, "FREED ONLY BY A CONTEXT TEARDOWN");
    fputs("Allocations the program never freed that a context teardown released\n"
          "(cudaDeviceReset, cuDevicePrimaryCtxReset, cuCtxDestroy, the primary context's\n"
          "last cuDevicePrimaryCtxRelease or a green context's cuGreenCtxDestroy that held\n"
          "its last reference): leaks until then, as compute-sanitizer's leak check\n"
          "reports them.\n", f);
    size_t shown = top && top < t.n ? top : t.n;
    for (size_t i = 0; i < shown; i++) {
        const struct torn_group *g = &t.g[i];
        fputc('\n', f);
        put_amount(r, g->rule < 0 ? TC_RED : TC_YELLOW, g->bytes, g->count, "allocation");
        text_torn_site(r, g->kind, g->device, g->api, g->teardown);
        fputs(" at ", f);
        put_secs(f, g->time_ns);
        text_torn_rule(r, g->rule);
        fputc('\n', f);
        put_cs(r, "    ", g->cs);
    }
    if (shown < t.n) {
        uint64_t bytes = 0;
        for (size_t i = shown; i < t.n; i++)
            bytes = sat_add(bytes, t.g[i].bytes);
        fputs("\n(", f);
        put_count(f, t.n - shown, "more stack");
        fputs(" with ", f);
        put_bytes(f, bytes);
        fputs(" not shown; --top N shows more)\n", f);
    }
    torn_free(&t);
}
