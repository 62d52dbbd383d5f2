#include "analysis/multi/teardown_multi.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "render/json/json.h"
#include "analysis/multi/multi.h"
#include "render/report.h"
#include "util/sat.h"
#include "snapshot_format.h"
#include "analysis/teardown.h"
#include "render/text/textout.h"

void json_frames(struct json *j, const struct stackdb *db, uint32_t cs); /* output_json.c */

int torn_table_build(struct msnap *m, size_t n, bool merge, struct torn_table *t)
{
    memset(t, 0, sizeof *t);
    t->nsnaps = n;
    t->s.nsnaps = n;
    t->bytes = calloc(n, sizeof *t->bytes);
    t->count = calloc(n, sizeof *t->count);
    t->leaked_bytes = calloc(n, sizeof *t->leaked_bytes);
    if (t->bytes == NULL || t->count == NULL || t->leaked_bytes == NULL)
        goto fail;
    size_t ne = 0;
    for (size_t i = 0; i < n; i++)
        ne += m[i].s.nteardowns; /* at most 1,024 per snapshot (snap_read.c) */
    if (ne == 0)
        return 0;
    struct site_entry *e = malloc(ne * sizeof *e);
    if (e == NULL)
        goto fail;
    ne = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < m[i].s.nteardowns; k++) {
            const struct snap_teardown *d = &m[i].s.teardowns[k];
            int32_t rule = sview_kind_rule(&m[i].v, d->stack_id, d->kind);
            e[ne++] = (struct site_entry){
                .k = {.cs = sview_cs(&m[i].v, d->stack_id), .device = d->device, .rule = rule,
                      .api = d->api, .kind = d->kind, .teardown = d->teardown},
                .snap = i, .count = d->count, .bytes = d->bytes, .time_ns = d->time_ns};
            t->bytes[i] = sat_add(t->bytes[i], d->bytes);
            t->count[i] = sat_add(t->count[i], d->count);
            if (rule < 0)
                t->leaked_bytes[i] = sat_add(t->leaked_bytes[i], d->bytes);
        }
    int rc = site_table_build(e, ne, n, true, merge, &t->s);
    free(e);
    if (rc == 0)
        return 0;
fail:
    torn_table_free(t);
    return -1;
}

void torn_table_free(struct torn_table *t)
{
    site_table_free(&t->s);
    free(t->bytes);
    free(t->count);
    free(t->leaked_bytes);
    memset(t, 0, sizeof *t);
}

bool torn_table_grew(const struct torn_table *t, uint64_t floor)
{
    for (size_t i = 0; i < t->s.n; i++) {
        const struct site_row *row = &t->s.row[i];
        if (row->k.rule < 0 && !row->shrank && row->change > 0 && row->change >= floor)
            return true;
    }
    return false;
}

bool torn_table_leak_any(const struct torn_table *t, uint64_t floor)
{
    for (size_t i = 0; i < t->s.n; i++) {
        const struct site_row *row = &t->s.row[i];
        for (size_t c = 0; row->k.rule < 0 && c < row->present; c++)
            if (row->cells[c].b >= floor)
                return true;
    }
    return false;
}

static uint64_t count_change(const uint64_t *count, size_t n)
{
    uint64_t a = count[0], b = count[n - 1];
    return a > b ? a - b : b - a;
}

static void put_site(struct report_ctx *r, const struct site_row *row)
{
    put_torn_site(r, row->k.kind, row->k.device, row->k.api, row->k.teardown);
    put_torn_rule(r, row->k.rule);
    fputc('\n', r->out);
}

void text_torn_diff(struct report_ctx *r, const struct torn_table *t, size_t top)
{
    if (t->s.n == 0)
        return;
    FILE *f = r->out;
    size_t n = t->nsnaps;
    t_title(r, "FREED ONLY BY A CONTEXT TEARDOWN");
    fputs("Allocations never freed that a context teardown released, counted since\n"
          "tracking started, by call stack: the stacks whose bytes changed.\n", f);
    fputs("bytes: ", f);
    put_series(f, t->bytes, n, true);
    fputs(", allocations: ", f);
    put_series(f, t->count, n, false);
    fputc('\n', f);
    if (t->s.nchanged == 0)
        fputs("No change between the snapshots.\n", f);
    size_t shown = top && top < t->s.nchanged ? top : t->s.nchanged;
    for (size_t i = 0; i < shown; i++) { /* rows that vary sort first */
        const struct site_row *row = &t->s.row[i];
        const uint64_t *count, *bytes;
        site_expand(&t->s, row, &count, &bytes);
        fputc('\n', f);
        tc_on(r, row->shrank ? TC_GREEN : row->k.rule < 0 ? TC_RED : TC_YELLOW);
        fputs(row->shrank ? "-" : "+", f);
        tc_off(r);
        put_amount(r, row->shrank ? TC_GREEN : row->k.rule < 0 ? TC_RED : TC_YELLOW, row->change,
                   count_change(count, n), "allocation");
        put_site(r, row);
        fputs("    bytes:       ", f);
        put_series(f, bytes, n, true);
        fputs("\n    allocations: ", f);
        put_series(f, count, n, false);
        fputc('\n', f);
        put_cs(r, "    ", row->k.cs);
    }
    put_sites_rest(f, &t->s, shown, "teardown leaks");
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
    t_title(r, "FREED ONLY BY A CONTEXT TEARDOWN");
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
            fprintf(f, " rank %u (", m[row->cells[c].snap].s.proc.rank);
            put_human(f, row->cells[c].b);
            fputc(')', f);
        }
        fputc('\n', f);
        put_cs(r, "    ", row->k.cs);
    }
    put_sites_rest(f, &t->s, shown, NULL);
}

void json_torn_multi(struct report_ctx *r, struct json *j, const struct torn_table *t)
{
    size_t n = t->nsnaps;
    json_key(j, "teardown_leaks");
    json_obj(j);
    json_key(j, "bytes"); json_u64_inline(j, t->bytes, n);
    json_key(j, "count"); json_u64_inline(j, t->count, n);
    json_key(j, "leaked_bytes"); json_u64_inline(j, t->leaked_bytes, n);
    json_key(j, "groups");
    json_arr(j);
    for (size_t i = 0; i < t->s.n; i++) {
        const struct site_row *row = &t->s.row[i];
        int64_t change = row->change > INT64_MAX ? INT64_MAX : (int64_t)row->change;
        json_obj(j);
        json_key(j, "kind"); json_str(j, gl_kind_name(row->k.kind));
        json_key(j, "device"); json_i64(j, row->k.device);
        json_key(j, "api"); json_str(j, gl_api_name(row->k.api));
        json_key(j, "api_code"); json_u64(j, row->k.api);
        json_key(j, "teardown"); json_str(j, gl_api_name(row->k.teardown));
        json_key(j, "teardown_code"); json_u64(j, row->k.teardown);
        json_key(j, "rule"); json_str(j, row->k.rule >= 0 ? r->sup->rules[row->k.rule].name : NULL);
        const uint64_t *count, *bytes;
        site_expand(&t->s, row, &count, &bytes);
        json_key(j, "bytes"); json_u64_inline(j, bytes, n);
        json_key(j, "count"); json_u64_inline(j, count, n);
        json_key(j, "change"); json_i64(j, row->shrank ? -change : change);
        json_key(j, "total_bytes"); json_u64(j, row->total_bytes);
        json_key(j, "total_count"); json_u64(j, row->total);
        json_key(j, "present"); json_u64(j, row->present);
        json_key(j, "first_time_ns"); json_u64(j, row->first_time_ns);
        json_frames(j, r->db, row->k.cs);
        json_end_obj(j);
    }
    json_end_arr(j);
    json_end_obj(j);
}
