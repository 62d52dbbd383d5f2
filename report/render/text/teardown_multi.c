/* The FREED ONLY BY A CONTEXT TEARDOWN sections of diff and merge. */
#include "render/text/teardown_multi.h"

#include <inttypes.h>

#include "render/report.h"
#include "render/text/sites_multi.h"
#include "render/text/teardown.h"
#include "render/text/textout.h"
#include "snapshot_format.h"
#include "util/sat.h"

static uint64_t count_change(const uint64_t *count, size_t n)
{
    uint64_t a = count[0], b = count[n - 1];
    return a > b ? a - b : b - a;
}

static void put_site(struct report_ctx *r, const struct site_row *row)
{
    text_torn_site(r, row->k.kind, row->k.device, row->k.api, row->k.teardown);
    text_torn_rule(r, row->k.rule);
    fputc('\n', r->out);
}

void text_torn_diff(struct report_ctx *r, const struct torn_table *t, size_t top)
{
    if (t->s.n == 0)
        return;
    FILE *f = r->out;
    size_t n = t->nsnaps;
    put_title(r, "FREED ONLY BY A CONTEXT TEARDOWN");
    fputs("Allocations never freed that a context teardown released, counted since\n"
          "tracking started, by call stack: the stacks whose bytes changed.\n", f);
    fputs("bytes: ", f);
    text_sites_series(f, t->bytes, n, true);
    fputs(", allocations: ", f);
    text_sites_series(f, t->count, n, false);
    fputc('\n', f);
    if (t->s.nchanged == 0)
        fputs("No change between the snapshots.\n", f);
    size_t shown = top && top < t->s.nchanged ? top : t->s.nchanged;
    for (size_t i = 0; i < shown; i++) { /* rows that vary sort first */
        const struct site_row *row = &t->s.row[i];
        const uint64_t *count, *bytes;
        site_expand(&t->s, row, &count, &bytes);
        fputc('\n', f);
        put_color(r, row->shrank ? TC_GREEN : row->k.rule < 0 ? TC_RED : TC_YELLOW);
        fputs(row->shrank ? "-" : "+", f);
        put_color_end(r);
        put_amount(r, row->shrank ? TC_GREEN : row->k.rule < 0 ? TC_RED : TC_YELLOW, row->change,
                   count_change(count, n), "allocation");
        put_site(r, row);
        fputs("    bytes:       ", f);
        text_sites_series(f, bytes, n, true);
        fputs("\n    allocations: ", f);
        text_sites_series(f, count, n, false);
        fputc('\n', f);
        put_cs(r, "    ", row->k.cs);
    }
    text_sites_rest(f, &t->s, shown, "teardown leaks");
}

void text_torn_merge(struct report_ctx *r, struct msnap *m, const struct torn_table *t, size_t top)
{
    if (t->s.n == 0)
        return;
    FILE *f = r->out;
    size_t n = t->nsnaps, ranks = 0;
    uint64_t bytes = 0, count = 0;
    for (size_t k = 0; k < n; k++) {
        bytes = sat_add(bytes, t->bytes[k]);
        count = sat_add(count, t->count[k]);
        ranks += t->count[k] > 0;
    }
    put_title(r, "FREED ONLY BY A CONTEXT TEARDOWN");
    fputs("Allocations never freed that a context teardown released, by call stack\n"
          "over all ranks, most bytes first.\n", f);
    put_amount(r, TC_BOLD, bytes, count, "allocation");
    fputs(" from ", f);
    put_count(f, t->s.n, "stack");
    fprintf(f, " on %zu of %zu ranks\n", ranks, n);
    size_t shown = top && top < t->s.n ? top : t->s.n;
    for (size_t i = 0; i < shown; i++) {
        const struct site_row *row = &t->s.row[i];
        fputc('\n', f);
        put_amount(r, row->k.rule < 0 ? TC_RED : TC_YELLOW, row->total_bytes, row->total, "allocation");
        put_site(r, row);
        fprintf(f, "    on %zu of %zu ranks:", row->present, n);
        for (size_t c = 0; c < row->present; c++) {
            fprintf(f, " %s (", rank_name(&m[row->cells[c].snap].s.proc));
            put_human(f, row->cells[c].b);
            fputc(')', f);
        }
        fputc('\n', f);
        put_cs(r, "    ", row->k.cs);
    }
    text_sites_rest(f, &t->s, shown, NULL);
}
