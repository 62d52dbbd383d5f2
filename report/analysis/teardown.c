#include "analysis/teardown.h"

#include <inttypes.h>
#include <stdlib.h>

#include "render/json/json.h"
#include "render/report.h"
#include "util/sat.h"
#include "snapshot_format.h"
#include "util/sort.h"
#include "model/stackdb.h"
#include "model/suppress.h"
#include "render/text/textout.h"

/* output_json.c */
void json_frames(struct json *j, const struct stackdb *db, uint32_t cs);
void json_group_head(struct json *j, uint64_t bytes, uint64_t count, unsigned kind, int32_t device, unsigned api);

#define CMP(a, b) do { if ((a) != (b)) return (a) < (b) ? -1 : 1; } while (0)

static int same_group(const struct torn_group *x, const struct torn_group *y)
{
    CMP(x->cs, y->cs);
    CMP(x->kind, y->kind);
    CMP(x->api, y->api);
    CMP(x->device, y->device);
    CMP(x->teardown, y->teardown);
    CMP(x->rule, y->rule);
    return 0;
}

static int by_key(const void *a, const void *b)
{
    const struct torn_group *x = a, *y = b;
    int c = same_group(x, y);
    if (c)
        return c;
    CMP(x->stack_id, y->stack_id);
    return 0;
}

static int by_bytes(const void *a, const void *b)
{
    const struct torn_group *x = a, *y = b;
    CMP(y->bytes, x->bytes);
    CMP(y->count, x->count);
    CMP(x->time_ns, y->time_ns);
    return same_group(x, y);
}

int torn_build(const struct snapview *v, struct torn_groups *out)
{
    const struct snapshot *s = v->s;
    *out = (struct torn_groups){0};
    if (s->nteardowns == 0)
        return 0;
    struct torn_group *g = malloc(s->nteardowns * sizeof *g);
    if (g == NULL)
        return -1;
    for (size_t i = 0; i < s->nteardowns; i++) {
        const struct snap_teardown *t = &s->teardowns[i];
        g[i] = (struct torn_group){.cs = sview_cs(v, t->stack_id), .stack_id = t->stack_id, .device = t->device,
                                   .rule = sview_kind_rule(v, t->stack_id, t->kind), .kind = t->kind, .api = t->api,
                                   .teardown = t->teardown, .bytes = t->bytes, .count = t->count,
                                   .time_ns = t->time_ns};
    }
    /* Stacks that fold to the same shown stack are one group. */
    sort_array(g, s->nteardowns, sizeof *g, by_key);
    size_t n = 0;
    for (size_t i = 0; i < s->nteardowns; i++) {
        if (n > 0 && same_group(&g[n - 1], &g[i]) == 0) {
            g[n - 1].bytes = sat_add(g[n - 1].bytes, g[i].bytes);
            g[n - 1].count = sat_add(g[n - 1].count, g[i].count);
            if (g[i].time_ns < g[n - 1].time_ns)
                g[n - 1].time_ns = g[i].time_ns;
        } else {
            g[n++] = g[i];
        }
    }
    sort_array(g, n, sizeof *g, by_bytes);
    out->g = g;
    out->n = n;
    for (size_t i = 0; i < n; i++) {
        out->bytes = sat_add(out->bytes, g[i].bytes);
        out->count = sat_add(out->count, g[i].count);
        if (g[i].rule < 0) {
            out->leaked_bytes = sat_add(out->leaked_bytes, g[i].bytes);
            out->leaked_count = sat_add(out->leaked_count, g[i].count);
        }
    }
    return 0;
}

void torn_free(struct torn_groups *t)
{
    free(t->g);
    *t = (struct torn_groups){0};
}

bool torn_has_leak(const struct torn_groups *t, uint64_t floor)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->g[i].rule < 0 && t->g[i].bytes >= floor)
            return true;
    return false;
}

void put_torn_site(struct report_ctx *r, unsigned kind, int32_t device, unsigned api, unsigned teardown)
{
    FILE *f = r->out;
    put_kind_where(f, kind, device);
    fputs(" (", f);
    put_api(f, api);
    fputs("), released by ", f);
    put_api(f, teardown);
}

void put_torn_rule(struct report_ctx *r, int32_t rule)
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
        tc_on(r, TC_RED);
    fprintf(f, "    %-18s", "until teardown:");
    put_bytes(f, t.bytes);
    fputs(" in ", f);
    put_count(f, t.count, "allocation");
    fputs(" from ", f);
    put_count(f, t.n, "stack");
    tc_off(r);
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
    t_title(r, "FREED ONLY BY A CONTEXT TEARDOWN");
    fputs("Allocations the program never freed that a context teardown released\n"
          "(cudaDeviceReset, cuDevicePrimaryCtxReset, cuCtxDestroy, the primary context's\n"
          "last cuDevicePrimaryCtxRelease): leaks until then, as compute-sanitizer's leak\n"
          "check reports them.\n", f);
    size_t shown = top && top < t.n ? top : t.n;
    for (size_t i = 0; i < shown; i++) {
        const struct torn_group *g = &t.g[i];
        fputc('\n', f);
        put_amount(r, g->rule < 0 ? TC_RED : TC_YELLOW, g->bytes, g->count, "allocation");
        put_torn_site(r, g->kind, g->device, g->api, g->teardown);
        fputs(" at ", f);
        put_secs(f, g->time_ns);
        put_torn_rule(r, g->rule);
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

void json_torn(struct report_ctx *r, struct json *j)
{
    struct torn_groups t;
    if (torn_build(r->v, &t) != 0)
        t = (struct torn_groups){0};
    json_key(j, "teardown_leaks");
    json_obj(j);
    json_key(j, "bytes"); json_u64(j, t.bytes);
    json_key(j, "count"); json_u64(j, t.count);
    json_key(j, "leaked_bytes"); json_u64(j, t.leaked_bytes);
    json_key(j, "leaked_count"); json_u64(j, t.leaked_count);
    json_key(j, "groups");
    json_arr(j);
    for (size_t i = 0; i < t.n; i++) {
        const struct torn_group *g = &t.g[i];
        json_obj(j);
        json_group_head(j, g->bytes, g->count, g->kind, g->device, g->api);
        json_key(j, "teardown"); json_str(j, gl_api_name(g->teardown));
        json_key(j, "teardown_code"); json_u64(j, g->teardown);
        json_key(j, "time_ns"); json_u64(j, g->time_ns);
        json_key(j, "rule"); json_str(j, g->rule >= 0 ? r->sup->rules[g->rule].name : NULL);
        json_key(j, "stack_id"); json_u64(j, g->stack_id);
        json_frames(j, r->db, g->cs);
        json_end_obj(j);
    }
    json_end_arr(j);
    json_end_obj(j);
    torn_free(&t);
}
