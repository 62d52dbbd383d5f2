/* The "allocation_calls" member of the JSON report (report, diff, merge). */
#include "render/json/calls.h"

#include "analysis/analyze.h"
#include "analysis/multi/cells.h"
#include "render/json/common.h"
#include "render/report.h"
#include "snapshot_format.h"

static void json_sites(struct report_ctx *r, struct json *j, const struct call_sites *c)
{
    json_obj(j);
    json_key(j, "calls"); json_u64(j, c->allocs);
    json_key(j, "frees"); json_u64(j, c->frees);
    json_key(j, "bytes"); json_u64(j, c->bytes);
    if (c->sampled) { /* GPULEAK_MODE=light: the sites' estimated_* say what they stand for */
        json_key(j, "sampled"); json_bool(j, true);
    }
    json_key(j, "sites");
    json_arr(j);
    for (size_t i = 0; i < c->n; i++) {
        const struct call_site *s = &c->site[i];
        json_obj(j);
        json_key(j, "calls"); json_u64(j, s->allocs);
        json_key(j, "frees"); json_u64(j, s->frees);
        json_key(j, "bytes"); json_u64(j, s->bytes);
        if (c->sampled) { /* calls, frees, bytes: the sampled ones; these, what they stand for */
            json_key(j, "estimated_calls"); json_u64(j, est_round(s->est_allocs));
            json_key(j, "estimated_frees"); json_u64(j, est_round(s->est_frees));
            json_key(j, "estimated_bytes"); json_u64(j, est_round(s->est_bytes));
        }
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

void json_calls_merge(struct report_ctx *r, struct json *j, struct msnap *m, size_t n)
{
    struct call_sites c;
    if (calls_merge(m, n, &c) != 0)
        c = (struct call_sites){0};
    json_key(j, "allocation_calls");
    json_sites(r, j, &c);
    calls_free(&c);
}
