#include "analysis/multi/teardown_multi.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/multi/multi.h"
#include "snapshot_format.h"
#include "util/sat.h"
#include "util/xalloc.h"

int torn_table_build(struct msnap *m, size_t n, bool merge, struct torn_table *t)
{
    memset(t, 0, sizeof *t);
    t->nsnaps = n;
    t->s.nsnaps = n;
    t->bytes = xcalloc(n, sizeof *t->bytes);
    t->count = xcalloc(n, sizeof *t->count);
    t->leaked_bytes = xcalloc(n, sizeof *t->leaked_bytes);
    if (t->bytes == NULL || t->count == NULL || t->leaked_bytes == NULL)
        goto fail;
    size_t ne = 0;
    for (size_t i = 0; i < n; i++)
        ne += m[i].s.nteardowns; /* at most 1,024 per snapshot (snap_read.c) */
    if (ne == 0)
        return 0;
    struct site_entry *e = xmalloc(ne * sizeof *e);
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

