#include "analysis/calls.h"

#include <inttypes.h>
#include <stdlib.h>

#include "render/json/json.h"
#include "render/report.h"
#include "util/sat.h"
#include "snapshot_format.h"
#include "util/sort.h"
#include "render/text/textout.h"

void json_frames(struct json *j, const struct stackdb *db, uint32_t cs); /* output_json.c */

static int by_key(const void *a, const void *b)
{
    const struct call_site *x = a, *y = b;
    if (x->cs != y->cs)
        return x->cs < y->cs ? -1 : 1;
    if (x->api != y->api)
        return x->api < y->api ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return x->stack_id < y->stack_id ? -1 : x->stack_id > y->stack_id;
}

static int by_calls(const void *a, const void *b)
{
    const struct call_site *x = a, *y = b;
    if (x->allocs != y->allocs)
        return x->allocs > y->allocs ? -1 : 1;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return x->stack_id < y->stack_id ? -1 : x->stack_id > y->stack_id;
}

static void totals(struct call_sites *c)
{
    c->allocs = c->frees = c->bytes = 0;
    for (size_t i = 0; i < c->n; i++) {
        c->allocs = sat_add(c->allocs, c->site[i].allocs);
        c->frees = sat_add(c->frees, c->site[i].frees);
        c->bytes = sat_add(c->bytes, c->site[i].bytes);
    }
}

int calls_build(const struct snapview *v, struct call_sites *out)
{
    const struct snapshot *s = v->s;
    *out = (struct call_sites){0};
    if (s->ncalls == 0)
        return 0;
    struct call_site *site = malloc(s->ncalls * sizeof *site);
    if (site == NULL)
        return -1;
    for (size_t i = 0; i < s->ncalls; i++) {
        const struct snap_calls *c = &s->calls[i];
        site[i] = (struct call_site){.cs = sview_cs(v, c->stack_id), .stack_id = c->stack_id, .api = c->api,
                                     .kind = c->kind, .allocs = c->allocs, .frees = c->frees, .bytes = c->bytes};
    }
    /* Stacks that fold to the same shown stack are one site. */
    sort_array(site, s->ncalls, sizeof *site, by_key);
    size_t n = 0;
    for (size_t i = 0; i < s->ncalls; i++) {
        if (n > 0 && site[n - 1].cs == site[i].cs && site[n - 1].api == site[i].api &&
            site[n - 1].kind == site[i].kind) {
            site[n - 1].allocs = sat_add(site[n - 1].allocs, site[i].allocs);
            site[n - 1].frees = sat_add(site[n - 1].frees, site[i].frees);
            site[n - 1].bytes = sat_add(site[n - 1].bytes, site[i].bytes);
        } else {
            site[n++] = site[i];
        }
    }
    sort_array(site, n, sizeof *site, by_calls);
    out->site = site;
    out->n = n;
    totals(out);
    return 0;
}

/* Sites of one snapshot are unique by (cs, api, kind) after calls_build. */
static int by_site(const void *a, const void *b)
{
    const struct call_site *x = a, *y = b;
    if (x->cs != y->cs)
        return x->cs < y->cs ? -1 : 1;
    if (x->api != y->api)
        return x->api < y->api ? -1 : 1;
    return x->kind < y->kind ? -1 : x->kind > y->kind;
}

int calls_between(const struct snapview *first, const struct snapview *last, struct call_sites *out)
{
    struct call_sites a, b;
    *out = (struct call_sites){0};
    if (calls_build(first, &a) != 0)
        return -1;
    if (calls_build(last, &b) != 0) {
        calls_free(&a);
        return -1;
    }
    /* The first snapshot's sites by key, for a binary search per site of
     * the last (tens of thousands of stacks in a long job). */
    sort_array(a.site, a.n, sizeof *a.site, by_site);
    size_t n = 0;
    for (size_t i = 0; i < b.n; i++) {
        struct call_site s = b.site[i];
        const struct call_site *o = a.n ? bsearch(&s, a.site, a.n, sizeof *a.site, by_site) : NULL;
        if (o != NULL) {
            s.allocs = s.allocs > o->allocs ? s.allocs - o->allocs : 0;
            s.frees = s.frees > o->frees ? s.frees - o->frees : 0;
            s.bytes = s.bytes > o->bytes ? s.bytes - o->bytes : 0;
        }
        if (s.allocs > 0)
            b.site[n++] = s;
    }
    calls_free(&a);
    sort_array(b.site, n, sizeof *b.site, by_calls);
    b.n = n;
    totals(&b);
    *out = b;
    return 0;
}

/* A site of one snapshot, for merging. */
struct tagged {
    struct call_site s;
    size_t snap;
};

static int by_site_snap(const void *a, const void *b)
{
    const struct tagged *x = a, *y = b;
    int c = by_site(&x->s, &y->s);
    if (c)
        return c;
    return x->snap < y->snap ? -1 : x->snap > y->snap;
}

int calls_merge(struct msnap *m, size_t n, struct call_sites *out)
{
    *out = (struct call_sites){.nsnaps = n};
    struct tagged *all = NULL;
    size_t na = 0;
    for (size_t i = 0; i < n; i++) {
        struct call_sites c;
        if (calls_build(&m[i].v, &c) != 0)
            goto fail;
        struct tagged *grown = c.n ? realloc(all, (na + c.n) * sizeof *all) : all;
        if (grown == NULL) {
            calls_free(&c);
            goto fail;
        }
        all = grown;
        for (size_t k = 0; k < c.n; k++)
            all[na++] = (struct tagged){c.site[k], i};
        calls_free(&c);
    }
    sort_array(all, na, sizeof *all, by_site_snap);
    size_t nsites = 0;
    for (size_t i = 0; i < na; i++)
        nsites += i == 0 || by_site(&all[i - 1].s, &all[i].s) != 0;
    if (nsites == 0) {
        free(all);
        return 0;
    }
    out->site = calloc(nsites, sizeof *out->site);
    out->cells = calloc(na, sizeof *out->cells);
    out->scratch = calloc(n, sizeof *out->scratch);
    if (out->site == NULL || out->cells == NULL || out->scratch == NULL)
        goto fail;
    struct call_site *s = NULL;
    for (size_t i = 0; i < na; i++) {
        const struct call_site *x = &all[i].s;
        if (i == 0 || by_site(&all[i - 1].s, x) != 0) {
            s = &out->site[out->n];
            *s = *x;
            s->allocs = s->frees = s->bytes = 0;
            s->cells = &out->cells[i];
            out->n++;
        }
        /* calls_build made each site unique within its snapshot: one cell
         * per entry, in snapshot order */
        s->allocs = sat_add(s->allocs, x->allocs);
        s->frees = sat_add(s->frees, x->frees);
        s->bytes = sat_add(s->bytes, x->bytes);
        out->cells[i] = (struct snapcell){.snap = (uint32_t)all[i].snap, .a = x->allocs};
        s->present++;
    }
    free(all);
    sort_array(out->site, out->n, sizeof *out->site, by_calls);
    totals(out);
    return 0;
fail:
    free(all);
    calls_free(out);
    return -1;
}

void calls_free(struct call_sites *c)
{
    free(c->site);
    free(c->cells);
    free(c->scratch);
    *c = (struct call_sites){0};
}

/* m: merge's snapshots, for each site's line of ranks; NULL otherwise. */
static void text_sites(struct report_ctx *r, const struct call_sites *c, size_t top, struct msnap *m)
{
    FILE *f = r->out;
    char freed[32];
    put_count(f, c->allocs, "call");
    fmt_commas(freed, sizeof freed, c->frees);
    fprintf(f, ", %s freed, from ", freed);
    put_count(f, c->n, "stack");
    fputs(", ", f);
    put_bytes(f, c->bytes);
    fputs(" made in all\n", f);
    size_t shown = top && top < c->n ? top : c->n;
    for (size_t i = 0; i < shown; i++) {
        const struct call_site *s = &c->site[i];
        fputc('\n', f);
        tc_on(r, TC_BOLD);
        put_count(f, s->allocs, "call");
        tc_off(r);
        fputs(" (", f);
        put_api(f, s->api);
        fputs(", ", f);
        put_kind(f, s->kind);
        fmt_commas(freed, sizeof freed, s->frees);
        fprintf(f, "), %s freed, ", freed);
        put_bytes(f, s->bytes);
        fputs(" in all\n", f);
        if (m != NULL && s->cells != NULL) {
            fprintf(f, "    on %zu of %zu ranks:", s->present, c->nsnaps);
            for (size_t k = 0; k < s->present; k++)
                if (s->cells[k].a) {
                    fmt_commas(freed, sizeof freed, s->cells[k].a);
                    fprintf(f, " rank %u (%s)", m[s->cells[k].snap].s.proc.rank, freed);
                }
            fputc('\n', f);
        }
        put_cs(r, "    ", s->cs);
    }
    if (shown < c->n) {
        uint64_t calls = 0;
        for (size_t i = shown; i < c->n; i++)
            calls = sat_add(calls, c->site[i].allocs);
        fputs("\n(", f);
        put_count(f, c->n - shown, "more stack");
        fputs(" with ", f);
        put_count(f, calls, "call");
        fputs(" not shown; --top N shows more)\n", f);
    }
}

void text_calls(struct report_ctx *r, size_t top)
{
    struct call_sites c;
    if (calls_build(r->v, &c) != 0 || c.n == 0) {
        calls_free(&c);
        return;
    }
    t_title(r, "ALLOCATION CALLS");
    fputs("Every call that made memory since tracking started, by call stack, most\n"
          "calls first.  CUDA's allocation calls are slow and cudaFree waits for the\n"
          "device, so a site that allocates and frees in a loop costs time even when\n"
          "it leaks nothing.\n", r->out);
    text_sites(r, &c, top, NULL);
    calls_free(&c);
}

void text_calls_between(struct report_ctx *r, const struct snapview *first, const struct snapview *last,
                        bool same_process, size_t top)
{
    FILE *f = r->out;
    t_title(r, "ALLOCATION CALLS BETWEEN THE FIRST AND LAST SNAPSHOTS");
    if (!same_process) {
        fputs("Not applicable: the first and last snapshots come from different processes.\n", f);
        return;
    }
    struct call_sites c;
    if (calls_between(first, last, &c) != 0 || c.n == 0) {
        fputs(first->s->ncalls || last->s->ncalls ? "None.\n" : "Not recorded in these snapshots.\n", f);
        calls_free(&c);
        return;
    }
    fputs("The calls that made memory in that time, by call stack, most calls first:\n", f);
    text_sites(r, &c, top, NULL);
    calls_free(&c);
}

static void json_sites(struct report_ctx *r, struct json *j, const struct call_sites *c)
{
    json_obj(j);
    json_key(j, "calls"); json_u64(j, c->allocs);
    json_key(j, "frees"); json_u64(j, c->frees);
    json_key(j, "bytes"); json_u64(j, c->bytes);
    json_key(j, "sites");
    json_arr(j);
    for (size_t i = 0; i < c->n; i++) {
        const struct call_site *s = &c->site[i];
        json_obj(j);
        json_key(j, "calls"); json_u64(j, s->allocs);
        json_key(j, "frees"); json_u64(j, s->frees);
        json_key(j, "bytes"); json_u64(j, s->bytes);
        json_key(j, "api"); json_str(j, gl_api_name(s->api));
        json_key(j, "api_code"); json_u64(j, s->api);
        json_key(j, "kind"); json_str(j, gl_kind_name(s->kind));
        json_key(j, "kind_code"); json_u64(j, s->kind);
        if (s->cells != NULL) { /* merge: stack ids are per process */
            cells_expand(s->cells, s->present, c->nsnaps, c->scratch, NULL);
            json_key(j, "present"); json_u64(j, s->present);
            json_key(j, "calls_by_snapshot"); json_u64_inline(j, c->scratch, c->nsnaps);
        } else {
            json_key(j, "stack_id"); json_u64(j, s->stack_id);
        }
        json_frames(j, r->db, s->cs);
        json_end_obj(j);
    }
    json_end_arr(j);
    json_end_obj(j);
}

void json_calls(struct report_ctx *r, struct json *j)
{
    struct call_sites c;
    if (calls_build(r->v, &c) != 0)
        c = (struct call_sites){0};
    json_key(j, "allocation_calls");
    json_sites(r, j, &c);
    calls_free(&c);
}

void json_calls_between(struct report_ctx *r, struct json *j, const struct snapview *first,
                        const struct snapview *last, bool same_process)
{
    json_key(j, "allocation_calls_between");
    struct call_sites c;
    if (!same_process || calls_between(first, last, &c) != 0) {
        json_null(j);
        return;
    }
    json_sites(r, j, &c);
    calls_free(&c);
}

void text_calls_merge(struct report_ctx *r, struct msnap *m, size_t n, size_t top)
{
    struct call_sites c;
    if (calls_merge(m, n, &c) != 0 || c.n == 0) {
        calls_free(&c);
        return;
    }
    t_title(r, "ALLOCATION CALLS");
    fputs("Every call that made memory since tracking started, by call stack over all\n"
          "ranks, most calls first.\n", r->out);
    text_sites(r, &c, top, m);
    calls_free(&c);
}

void json_calls_merge(struct report_ctx *r, struct json *j, struct msnap *m, size_t n)
{
    struct call_sites c;
    if (calls_merge(m, n, &c) != 0)
        c = (struct call_sites){0};
    json_key(j, "allocation_calls");
    json_sites(r, j, &c);
    calls_free(&c);
}
