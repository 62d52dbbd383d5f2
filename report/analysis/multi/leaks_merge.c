/* See leaks_merge.h.  A leak on every rank at one site is the usual shape of
 * a job's leak (each rank runs the same code); one on some ranks only, or
 * of different sizes, points at rank-dependent code or data. */
#include "analysis/multi/leaks_merge.h"

#include <inttypes.h>
#include <stdlib.h>

#include "render/json/json.h"
#include "analysis/multi/multi.h"
#include "render/report.h"
#include "util/sat.h"
#include "snapshot_format.h"
#include "util/sort.h"
#include "render/text/textout.h"

void json_frames(struct json *j, const struct stackdb *db, uint32_t cs); /* output_json.c */

static int cmp_site(const void *pa, const void *pb)
{
    const struct leak_site *a = pa, *b = pb;
    if (a->row->total != b->row->total)
        return a->row->total > b->row->total ? -1 : 1;
    return a->row < b->row ? -1 : a->row > b->row; /* the table's order */
}

int leak_sites_build(const struct mtable *t, uint64_t min_bytes, struct leak_sites *out)
{
    *out = (struct leak_sites){0};
    if (t->n && !(out->v = calloc(t->n, sizeof *out->v)))
        return -1;
    for (size_t i = 0; i < t->n; i++) {
        const struct mrow *row = &t->rows[i];
        /* what merge counts as leaked per rank (BY RANK's "outside caches
         * and suppressions"), and at least one byte */
        if (row->rule >= 0 || gl_kind_is_mapping(row->kind) || row->present == 0 || row->total == 0 ||
            row->total < min_bytes)
            continue;
        struct leak_site *ls = &out->v[out->n++];
        *ls = (struct leak_site){.row = row, .min_bytes = UINT64_MAX};
        for (size_t c = 0; c < row->present; c++) {
            uint64_t b = row->cells[c].a;
            if (b < ls->min_bytes) {
                ls->min_bytes = b;
                ls->min_snap = row->cells[c].snap;
            }
            if (b > ls->max_bytes) {
                ls->max_bytes = b;
                ls->max_snap = row->cells[c].snap;
            }
        }
        out->bytes = sat_add(out->bytes, row->total);
    }
    sort_array(out->v, out->n, sizeof *out->v, cmp_site);
    return 0;
}

void leak_sites_free(struct leak_sites *l)
{
    free(l->v);
    *l = (struct leak_sites){0};
}

void put_absent_ranks(FILE *f, const struct msnap *m, size_t n, const struct mrow *row)
{
    bool first = true;
    for (size_t k = 0, c = 0; k < n; k++) {
        if (c < row->present && row->cells[c].snap == k) {
            c++; /* a row's cells are in snapshot order */
            continue;
        }
        fprintf(f, "%s rank %u", first ? "" : ",", m[k].s.proc.rank);
        first = false;
    }
}

void text_leaks_merge(struct report_ctx *r, const struct msnap *m, size_t n, const struct mtable *t,
                      const struct leak_sites *l, size_t top)
{
    (void)t;
    FILE *f = r->out;
    t_title(r, "LEAKS BY SITE");
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
        tc_on(r, TC_RED);
        put_bytes(f, row->total);
        tc_off(r);
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
            fprintf(f, " (rank %u) to ", m[ls->min_snap].s.proc.rank);
            put_human(f, ls->max_bytes);
            fprintf(f, " (rank %u)\n", m[ls->max_snap].s.proc.rank);
        }
        fputs("    on:", f);
        for (size_t c = 0; c < row->present; c++) {
            fprintf(f, "%s rank %u ", c ? "," : "", m[row->cells[c].snap].s.proc.rank);
            put_human(f, row->cells[c].a);
            fputs(" in ", f);
            put_count(f, row->cells[c].b, "allocation");
        }
        fputc('\n', f);
        if (row->present < n) {
            fputs("    not on:", f);
            put_absent_ranks(f, m, n, row);
            fputc('\n', f);
        }
        put_cs(r, "    ", row->cs);
    }
    if (shown < l->n) {
        fputc('\n', f);
        fprintf(f, "... and %zu more site%s (--top)\n", l->n - shown, l->n - shown == 1 ? "" : "s");
    }
}

void json_leaks_merge(struct report_ctx *r, struct json *j, const struct msnap *m, size_t n,
                      const struct mtable *t, const struct leak_sites *l)
{
    json_key(j, "leaks");
    json_obj(j);
    json_key(j, "bytes"); json_u64(j, l->bytes);
    json_key(j, "sites");
    json_arr(j);
    for (size_t i = 0; i < l->n; i++) {
        const struct leak_site *ls = &l->v[i];
        const struct mrow *row = ls->row;
        json_obj(j);
        json_key(j, "kind"); json_str(j, gl_kind_name(row->kind));
        json_key(j, "total_bytes"); json_u64(j, row->total);
        json_key(j, "present"); json_u64(j, row->present);
        json_key(j, "on_every_rank"); json_bool(j, row->present == n);
        json_key(j, "ranks");
        json_arr(j);
        for (size_t c = 0; c < row->present; c++)
            json_u64(j, m[row->cells[c].snap].s.proc.rank);
        json_end_arr(j);
        const uint64_t *bytes, *count;
        mt_expand(t, row, &bytes, &count);
        json_key(j, "bytes"); json_u64_inline(j, bytes, n);
        json_key(j, "count"); json_u64_inline(j, count, n);
        json_key(j, "min_bytes"); json_u64(j, ls->min_bytes);
        json_key(j, "max_bytes"); json_u64(j, ls->max_bytes);
        json_key(j, "even"); json_bool(j, ls->min_bytes == ls->max_bytes);
        json_frames(j, r->db, row->cs);
        json_end_obj(j);
    }
    json_end_arr(j);
    json_end_obj(j);
}
