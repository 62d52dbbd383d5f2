/* The "invalid_frees" member of diff and merge JSON. */
#include "render/json/bad_frees_multi.h"

#include "render/json/common.h"
#include "render/report.h"
#include "snapshot_format.h"

void json_bad_frees_multi(struct report_ctx *r, struct json *j, const struct free_table *t)
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
        json_key(j, "double_free"); json_bool(j, row->k.twice);
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
