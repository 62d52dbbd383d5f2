#include "analysis/teardown.h"

#include <inttypes.h>
#include <stdlib.h>

#include "model/stackdb.h"
#include "model/suppress.h"
#include "snapshot_format.h"
#include "util/sat.h"
#include "util/sort.h"
#include "util/xalloc.h"

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
    struct torn_group *g = xmalloc(s->nteardowns * sizeof *g);
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
