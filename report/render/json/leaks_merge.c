/* The "leaks" member of merge JSON. */
#include "render/json/leaks_merge.h"

#include "render/json/common.h"
#include "render/report.h"
#include "snapshot_format.h"

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
            json_rank(j, &m[row->cells[c].snap].s.proc);
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
