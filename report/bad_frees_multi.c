#include "bad_frees_multi.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "multi.h"
#include "report.h"
#include "sat.h"
#include "snapshot_format.h"
#include "sort.h"
#include "textout.h"

void json_frames(struct json *j, const struct stackdb *db, uint32_t cs); /* output_json.c */

/* One BAD_FREES entry with its site key and its snapshot. */
struct entry {
    uint32_t cs;
    uint16_t api;
    int32_t device;
    bool refused;
    size_t snap;
    const struct snap_bad_free *b;
};

#define CMP(a, b) do { if ((a) != (b)) return (a) < (b) ? -1 : 1; } while (0)

static int same_site(const struct entry *x, const struct entry *y)
{
    CMP(x->cs, y->cs);
    CMP(x->api, y->api);
    CMP(x->device, y->device);
    CMP(x->refused, y->refused);
    return 0;
}

static int by_site(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    int c = same_site(x, y);
    if (c)
        return c;
    CMP(x->snap, y->snap);
    CMP(x->b->time_ns, y->b->time_ns);
    return 0;
}

/* Most frees first; ties: refused first, then the site key, so the order is
 * total (sites are unique). */
static int by_total(const void *a, const void *b)
{
    const struct free_row *x = a, *y = b;
    CMP(y->total, x->total);
    CMP(y->refused, x->refused);
    CMP(x->cs, y->cs);
    CMP(x->api, y->api);
    CMP(x->device, y->device);
    return 0;
}

/* Rows whose count varies first, then by net change, then as by_total. */
static int by_change(const void *a, const void *b)
{
    const struct free_row *x = a, *y = b;
    CMP(y->varies, x->varies);
    CMP(y->change, x->change);
    return by_total(a, b);
}

static bool changed(const struct free_row *r, size_t nsnaps)
{
    for (size_t k = 1; k < nsnaps; k++)
        if (r->count[k] != r->count[0])
            return true;
    return false;
}

int free_table_build(struct msnap *m, size_t n, bool merge, struct free_table *t)
{
    memset(t, 0, sizeof *t);
    t->nsnaps = n;
    t->count = calloc(n, sizeof *t->count);
    t->refused_count = calloc(n, sizeof *t->refused_count);
    if (t->count == NULL || t->refused_count == NULL)
        goto fail;
    size_t ne = 0;
    for (size_t i = 0; i < n; i++)
        ne += m[i].s.nbad_frees; /* at most 256 per snapshot (snap_read.c) */
    if (ne == 0)
        return 0;
    struct entry *e = malloc(ne * sizeof *e);
    if (e == NULL)
        goto fail;
    ne = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < m[i].s.nbad_frees; k++) {
            const struct snap_bad_free *b = &m[i].s.bad_frees[k];
            bool refused = (b->flags & GL_BAD_FREE_F_REJECTED) != 0;
            e[ne++] = (struct entry){.cs = sview_cs(&m[i].v, b->stack_id), .api = b->api,
                                     .device = b->device, .refused = refused, .snap = i, .b = b};
            t->count[i] = sat_add(t->count[i], b->count);
            if (refused)
                t->refused_count[i] = sat_add(t->refused_count[i], b->count);
        }
    sort_array(e, ne, sizeof *e, by_site);
    size_t nrows = 0;
    for (size_t i = 0; i < ne; i++)
        nrows += i == 0 || same_site(&e[i - 1], &e[i]) != 0;
    t->row = calloc(nrows, sizeof *t->row);
    t->cells = calloc(nrows * n, sizeof *t->cells);
    if (t->row == NULL || t->cells == NULL) {
        free(e);
        goto fail;
    }
    struct free_row *r = NULL;
    for (size_t i = 0; i < ne; i++) {
        if (i == 0 || same_site(&e[i - 1], &e[i]) != 0) {
            r = &t->row[t->n];
            *r = (struct free_row){.cs = e[i].cs, .api = e[i].api, .device = e[i].device,
                                   .refused = e[i].refused, .count = &t->cells[t->n * n],
                                   .first_ptr = e[i].b->ptr};
            t->n++;
        }
        /* Stacks that fold to the same shown stack are one site. */
        if (r->count[e[i].snap] == 0)
            r->present++;
        r->count[e[i].snap] = sat_add(r->count[e[i].snap], e[i].b->count);
        r->total = sat_add(r->total, e[i].b->count);
    }
    free(e);
    for (size_t i = 0; i < t->n; i++) {
        r = &t->row[i];
        uint64_t a = r->count[0], b = r->count[n - 1];
        r->shrank = b < a;
        r->change = b < a ? a - b : b - a;
        r->varies = changed(r, n);
        t->nchanged += r->varies;
    }
    sort_array(t->row, t->n, sizeof *t->row, merge ? by_total : by_change);
    /* The sort moved rows, not cells: each row still points at its own. */
    return 0;
fail:
    free_table_free(t);
    return -1;
}

void free_table_free(struct free_table *t)
{
    free(t->row);
    free(t->cells);
    free(t->count);
    free(t->refused_count);
    memset(t, 0, sizeof *t);
}

bool free_table_refused_grew(const struct free_table *t)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->row[i].refused && !t->row[i].shrank && t->row[i].change > 0)
            return true;
    return false;
}

static bool any(const struct free_table *t)
{
    return t->n > 0;
}

/* "N frees (API) on device D, refused by CUDA (...)" without the count. */
static void put_site(FILE *f, const struct free_row *r)
{
    fputs(" (", f);
    put_api(f, r->api);
    fputs(") on ", f);
    put_where(f, r->device);
    fputs(r->refused ? ", refused by CUDA (double or invalid free)\n"
                     : ", accepted by CUDA (allocated where gpuleak could not see it)\n", f);
}

static void put_series(FILE *f, const uint64_t *v, size_t n)
{
    for (size_t k = 0; k < n; k++)
        fprintf(f, "%s%" PRIu64, k ? " -> " : "", v[k]);
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
    put_series(f, t->count, t->nsnaps);
    fputs(", refused by CUDA: ", f);
    put_series(f, t->refused_count, t->nsnaps);
    fputc('\n', f);
    if (t->nchanged == 0)
        fputs("No change between the snapshots.\n", f);
    size_t shown = top && top < t->nchanged ? top : t->nchanged;
    /* rows that vary sort first */
    for (size_t i = 0; i < shown; i++) {
        const struct free_row *row = &t->row[i];
        fputc('\n', f);
        tc_on(r, row->shrank ? TC_GREEN : row->refused ? TC_RED : TC_YELLOW);
        fputs(row->shrank ? "-" : "+", f);
        put_count(f, row->change, "free");
        tc_off(r);
        put_site(f, row);
        fputs("    frees: ", f);
        put_series(f, row->count, t->nsnaps);
        fputc('\n', f);
        put_cs(r, "    ", row->cs);
    }
    if (shown < t->nchanged) {
        fputs("\n(", f);
        put_count(f, t->nchanged - shown, "more changed stack");
        fputs(" not shown; --top N shows more)\n", f);
    }
    if (t->nchanged < t->n) {
        fputs("\n(", f);
        put_count(f, t->n - t->nchanged, "stack");
        fputs(" with the same invalid frees in every snapshot)\n", f);
    }
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
    put_count(f, t->n, "stack");
    fprintf(f, " on %zu of %zu ranks, %" PRIu64 " refused by CUDA\n", ranks, t->nsnaps, refused);
    size_t shown = top && top < t->n ? top : t->n;
    for (size_t i = 0; i < shown; i++) {
        const struct free_row *row = &t->row[i];
        fputc('\n', f);
        tc_on(r, row->refused ? TC_RED : TC_YELLOW);
        put_count(f, row->total, "free");
        tc_off(r);
        put_site(f, row);
        fprintf(f, "    on %zu of %zu ranks:", row->present, t->nsnaps);
        for (size_t k = 0; k < t->nsnaps; k++)
            if (row->count[k])
                fprintf(f, " rank %u (%" PRIu64 ")", m[k].s.proc.rank, row->count[k]);
        fputc('\n', f);
        put_cs(r, "    ", row->cs);
    }
    if (shown < t->n) {
        fputs("\n(", f);
        put_count(f, t->n - shown, "more stack");
        fputs(" not shown; --top N shows more)\n", f);
    }
}

void json_frees_multi(struct report_ctx *r, struct json *j, const struct free_table *t)
{
    json_key(j, "invalid_frees");
    json_obj(j);
    json_key(j, "count"); json_u64_inline(j, t->count, t->nsnaps);
    json_key(j, "refused_count"); json_u64_inline(j, t->refused_count, t->nsnaps);
    json_key(j, "sites");
    json_arr(j);
    for (size_t i = 0; i < t->n; i++) {
        const struct free_row *row = &t->row[i];
        int64_t change = row->change > INT64_MAX ? INT64_MAX : (int64_t)row->change;
        json_obj(j);
        json_key(j, "refused"); json_bool(j, row->refused);
        json_key(j, "api"); json_str(j, gl_api_name(row->api));
        json_key(j, "api_code"); json_u64(j, row->api);
        json_key(j, "device"); json_i64(j, row->device);
        json_key(j, "count"); json_u64_inline(j, row->count, t->nsnaps);
        json_key(j, "change"); json_i64(j, row->shrank ? -change : change);
        json_key(j, "total"); json_u64(j, row->total);
        json_key(j, "present"); json_u64(j, row->present);
        json_key(j, "first_ptr"); json_u64(j, row->first_ptr);
        json_frames(j, r->db, row->cs);
        json_end_obj(j);
    }
    json_end_arr(j);
    json_end_obj(j);
}
