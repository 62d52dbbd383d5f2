/* LEAKS BY SITE of a merge. */
#include "render/text/leaks_merge.h"

#include <inttypes.h>

#include "render/report.h"
#include "render/text/textout.h"
#include "snapshot_format.h"

void text_leaks_merge_absent(FILE *f, const struct msnap *m, size_t n, const struct mrow *row)
{
    bool first = true;
    for (size_t k = 0, c = 0; k < n; k++) {
        if (c < row->present && row->cells[c].snap == k) {
            c++; /* a row's cells are in snapshot order */
            continue;
        }
        fprintf(f, "%s %s", first ? "" : ",", rank_name(&m[k].s.proc));
        first = false;
    }
}

void text_leaks_merge(struct report_ctx *r, const struct msnap *m, size_t n, const struct mtable *t,
                      const struct leak_sites *l, size_t top)
{
    (void)t;
    FILE *f = r->out;
    put_title(r, "LEAKS BY SITE");
    if (l->n == 0) {
        fputs("No leaks on any rank.\n", f);
        return;
    }
    fputs("Memory still allocated, outside caches and suppressions, by the stack\n"
          "that allocated it, across the ranks: which ranks, how much on each, and\n"
          "whether the ranks differ.\n", f);
    size_t shown = top && l->n > top ? top : l->n;
    for (size_t i = 0; i < shown; i++) {
        const struct leak_site *ls = &l->v[i];
        const struct mrow *row = ls->row;
        fputc('\n', f);
        put_color(r, TC_RED);
        put_bytes(f, row->total);
        put_color_end(r);
        fputs(" of ", f);
        put_kind(f, row->kind);
        fputs(" memory", f);
        if (row->present == n)
            fprintf(f, " on every rank (%zu)", n);
        else
            fprintf(f, " on %zu of %zu ranks", row->present, n);
        if (ls->min_bytes == ls->max_bytes) {
            fputs(", ", f);
            put_human(f, ls->min_bytes);
            fputs(row->present == 1 ? "\n" : " on each\n", f);
        } else {
            fputs(", uneven: ", f);
            put_human(f, ls->min_bytes);
            fprintf(f, " (%s) to ", rank_name(&m[ls->min_snap].s.proc));
            put_human(f, ls->max_bytes);
            fprintf(f, " (%s)\n", rank_name(&m[ls->max_snap].s.proc));
        }
        fputs("    on:", f);
        for (size_t c = 0; c < row->present; c++) {
            fprintf(f, "%s %s ", c ? "," : "", rank_name(&m[row->cells[c].snap].s.proc));
            put_human(f, row->cells[c].a);
            fputs(" in ", f);
            put_count(f, row->cells[c].b, "allocation");
        }
        fputc('\n', f);
        if (row->present < n) {
            fputs("    not on:", f);
            text_leaks_merge_absent(f, m, n, row);
            fputc('\n', f);
        }
        put_cs(r, "    ", row->cs);
    }
    if (shown < l->n) {
        fputc('\n', f);
        fprintf(f, "... and %zu more site%s (--top)\n", l->n - shown, l->n - shown == 1 ? "" : "s");
    }
}
