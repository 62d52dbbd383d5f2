/* The INVALID FREES sections of diff and merge. */
#include "render/text/bad_frees_multi.h"

#include <inttypes.h>

#include "render/report.h"
#include "render/text/sites_multi.h"
#include "render/text/textout.h"
#include "snapshot_format.h"
#include "util/sat.h"

static bool any(const struct free_table *t)
{
    return t->s.n > 0;
}

/* "N frees (API) on device D, refused by CUDA (...)" without the count. */
static void put_site(FILE *f, const struct site_row *r)
{
    fputs(" (", f);
    put_api(f, r->k.api);
    fputs(") on ", f);
    put_where(f, r->k.device);
    fputs(!r->k.refused ? ", accepted by CUDA (allocated where gpuleak could not see it)\n"
          : r->k.twice  ? ", refused by CUDA (double free: the address was freed before)\n"
                        : ", refused by CUDA (double or invalid free)\n", f);
}

void text_bad_frees_diff(struct report_ctx *r, const struct free_table *t, size_t top)
{
    if (!any(t))
        return;
    FILE *f = r->out;
    put_title(r, "INVALID FREES");
    fputs("Frees of an address or handle that had no live allocation, counted since\n"
          "tracking started, by call stack: the stacks whose count changed.\n", f);
    fputs("frees: ", f);
    text_sites_series(f, t->count, t->nsnaps, false);
    fputs(", refused by CUDA: ", f);
    text_sites_series(f, t->refused_count, t->nsnaps, false);
    fputc('\n', f);
    if (t->s.nchanged == 0)
        fputs("No change between the snapshots.\n", f);
    size_t shown = top && top < t->s.nchanged ? top : t->s.nchanged;
    /* rows that vary sort first */
    for (size_t i = 0; i < shown; i++) {
        const struct site_row *row = &t->s.row[i];
        fputc('\n', f);
        put_color(r, row->shrank ? TC_GREEN : row->k.refused ? TC_RED : TC_YELLOW);
        fputs(row->shrank ? "-" : "+", f);
        put_count(f, row->change, "free");
        put_color_end(r);
        put_site(f, row);
        const uint64_t *count, *bytes;
        site_expand(&t->s, row, &count, &bytes);
        fputs("    frees: ", f);
        text_sites_series(f, count, t->nsnaps, false);
        fputc('\n', f);
        put_cs(r, "    ", row->k.cs);
    }
    text_sites_rest(f, &t->s, shown, "invalid frees");
}

void text_bad_frees_merge(struct report_ctx *r, struct msnap *m, const struct free_table *t, size_t top)
{
    if (!any(t))
        return;
    FILE *f = r->out;
    uint64_t all = 0, refused = 0;
    size_t ranks = 0;
    for (size_t k = 0; k < t->nsnaps; k++) {
        all = sat_add(all, t->count[k]);
        refused = sat_add(refused, t->refused_count[k]);
        ranks += t->count[k] > 0;
    }
    put_title(r, "INVALID FREES");
    fputs("Frees of an address or handle that had no live allocation, by call stack\n"
          "over all ranks, most first.\n", f);
    put_count(f, all, "free");
    fputs(" from ", f);
    put_count(f, t->s.n, "stack");
    fprintf(f, " on %zu of %zu ranks, %" PRIu64 " refused by CUDA\n", ranks, t->nsnaps, refused);
    size_t shown = top && top < t->s.n ? top : t->s.n;
    for (size_t i = 0; i < shown; i++) {
        const struct site_row *row = &t->s.row[i];
        fputc('\n', f);
        put_color(r, row->k.refused ? TC_RED : TC_YELLOW);
        put_count(f, row->total, "free");
        put_color_end(r);
        put_site(f, row);
        fprintf(f, "    on %zu of %zu ranks:", row->present, t->nsnaps);
        for (size_t c = 0; c < row->present; c++)
            fprintf(f, " %s (%" PRIu64 ")", rank_name(&m[row->cells[c].snap].s.proc), row->cells[c].a);
        fputc('\n', f);
        put_cs(r, "    ", row->k.cs);
    }
    text_sites_rest(f, &t->s, shown, NULL);
}
