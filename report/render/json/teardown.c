/* The "teardown_leaks" member of the JSON report. */
#include "render/json/teardown.h"

#include "analysis/teardown.h"
#include "model/stackdb.h"
#include "model/suppress.h"
#include "render/json/common.h"
#include "render/report.h"
#include "snapshot_format.h"


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
