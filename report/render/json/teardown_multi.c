/* The "teardown_leaks" member of diff and merge JSON. */
#include "render/json/teardown_multi.h"

#include "render/json/common.h"
#include "render/report.h"
#include "snapshot_format.h"

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
