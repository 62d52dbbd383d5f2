#include "analysis/multi/bad_frees_multi.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "render/json/json.h"
#include "analysis/multi/multi.h"
#include "render/report.h"
#include "util/sat.h"
#include "snapshot_format.h"
#include "render/text/textout.h"

void json_frames(struct json *j, const struct stackdb *db, uint32_t cs); /* output_json.c */

int free_table_build(struct msnap *m, size_t n, bool merge, struct free_table *t)
{
    memset(t, 0, sizeof *t);
    t->nsnaps = n;
    t->s.nsnaps = n;
    t->count = calloc(n, sizeof *t->count);
    t->refused_count = calloc(n, sizeof *t->refused_count);
    if (t->count == NULL || t->refused_count == NULL)
        goto fail;
    size_t ne = 0;
    for (size_t i = 0; i < n; i++)
        ne += m[i].s.nbad_frees; /* at most 256 per snapshot (snap_read.c) */
    if (ne == 0)
        return 0;
    struct site_entry *e = malloc(ne * sizeof *e);
    if (e == NULL)
        goto fail;
    ne = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < m[i].s.nbad_frees; k++) {
            const struct snap_bad_free *b = &m[i].s.bad_frees[k];
            bool refused = (b->flags & GL_BAD_FREE_F_REJECTED) != 0;
            e[ne++] = (struct site_entry){
                .k = {.cs = sview_cs(&m[i].v, b->stack_id), .api = b->api, .device = b->device,
                      .rule = -1, .refused = refused},
                .snap = i, .count = b->count, .ptr = b->ptr, .time_ns = b->time_ns};
            t->count[i] = sat_add(t->count[i], b->count);
            if (refused)
                t->refused_count[i] = sat_add(t->refused_count[i], b->count);
        }
    int rc = site_table_build(e, ne, n, false, merge, &t->s);
    free(e);
    if (rc == 0)
        return 0;
fail:
    free_table_free(t);
    return -1;
}

void free_table_free(struct free_table *t)
{
    site_table_free(&t->s);
    free(t->count);
    free(t->refused_count);
    memset(t, 0, sizeof *t);
}

bool free_table_refused_grew(const struct free_table *t)
{
    for (size_t i = 0; i < t->s.n; i++)
        if (t->s.row[i].k.refused && !t->s.row[i].shrank && t->s.row[i].change > 0)
            return true;
    return false;
}

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
    fputs(r->k.refused ? ", refused by CUDA (double or invalid free)\n"
                     : ", accepted by CUDA (allocated where gpuleak could not see it)\n", f);
}

void text_frees_diff(struct report_ctx *r, const struct free_table *t, size_t top)
{
    if (!any(t))
        return;
    FILE *f = r->out;
    t_title(r, "INVALID FREES");
    fputs("Frees of an address or handle that had no live allocation, counted since\n"
          "tracking started, by call stack: the stacks whose count changed.\n", f);
    fputs("frees: ", f);
    put_series(f, t->count, t->nsnaps, false);
    fputs(", refused by CUDA: ", f);
    put_series(f, t->refused_count, t->nsnaps, false);
    fputc('\n', f);
    if (t->s.nchanged == 0)
        fputs("No change between the snapshots.\n", f);
    size_t shown = top && top < t->s.nchanged ? top : t->s.nchanged;
    /* rows that vary sort first */
    for (size_t i = 0; i < shown; i++) {
        const struct site_row *row = &t->s.row[i];
        fputc('\n', f);
        tc_on(r, row->shrank ? TC_GREEN : row->k.refused ? TC_RED : TC_YELLOW);
        fputs(row->shrank ? "-" : "+", f);
        put_count(f, row->change, "free");
        tc_off(r);
        put_site(f, row);
        const uint64_t *count, *bytes;
        site_expand(&t->s, row, &count, &bytes);
        fputs("    frees: ", f);
        put_series(f, count, t->nsnaps, false);
        fputc('\n', f);
        put_cs(r, "    ", row->k.cs);
    }
    put_sites_rest(f, &t->s, shown, "invalid frees");
}

void text_frees_merge(struct report_ctx *r, struct msnap *m, const struct free_table *t, size_t top)
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
    t_title(r, "INVALID FREES");
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
        tc_on(r, row->k.refused ? TC_RED : TC_YELLOW);
        put_count(f, row->total, "free");
        tc_off(r);
        put_site(f, row);
        fprintf(f, "    on %zu of %zu ranks:", row->present, t->nsnaps);
        for (size_t c = 0; c < row->present; c++)
            fprintf(f, " rank %u (%" PRIu64 ")", m[row->cells[c].snap].s.proc.rank, row->cells[c].a);
        fputc('\n', f);
        put_cs(r, "    ", row->k.cs);
    }
    put_sites_rest(f, &t->s, shown, NULL);
}

void json_frees_multi(struct report_ctx *r, struct json *j, const struct free_table *t)
{
    json_key(j, "invalid_frees");
    json_obj(j);
    json_key(j, "count"); json_u64_inline(j, t->count, t->nsnaps);
    json_key(j, "refused_count"); json_u64_inline(j, t->refused_count, t->nsnaps);
    json_key(j, "sites");
    json_arr(j);
    for (size_t i = 0; i < t->s.n; i++) {
        const struct site_row *row = &t->s.row[i];
        int64_t change = row->change > INT64_MAX ? INT64_MAX : (int64_t)row->change;
        json_obj(j);
        json_key(j, "refused"); json_bool(j, row->k.refused);
        json_key(j, "api"); json_str(j, gl_api_name(row->k.api));
        json_key(j, "api_code"); json_u64(j, row->k.api);
        json_key(j, "device"); json_i64(j, row->k.device);
        const uint64_t *count, *bytes;
        site_expand(&t->s, row, &count, &bytes);
        json_key(j, "count"); json_u64_inline(j, count, t->nsnaps);
        json_key(j, "change"); json_i64(j, row->shrank ? -change : change);
        json_key(j, "total"); json_u64(j, row->total);
        json_key(j, "present"); json_u64(j, row->present);
        json_key(j, "first_ptr"); json_u64(j, row->first_ptr);
        json_frames(j, r->db, row->k.cs);
        json_end_obj(j);
    }
    json_end_arr(j);
    json_end_obj(j);
}
