/* The page's "calls" member: the ALLOCATION CALLS section (calls_build, the
 * analysis the text and JSON reports print), its totals and its sites, most
 * calls first, HT_ROWS at most.  The page draws the heading and the table
 * "Allocation calls" from it. */
#include "render/html/calls.h"

#include "analysis/analyze.h"
#include "analysis/calls.h"
#include "render/report.h"
#include "snapshot_format.h"

/* One site.  In a sampled snapshot, est_* are what its sampled calls stand
 * for, as the text's "~" figures; the calls of no stack (cs 0) were not
 * sampled and are already in those estimates, so that row has none (the
 * text says "not sampled: in the estimates above"). */
static void site(struct hw *w, const struct call_sites *c, const struct call_site *s)
{
    json_obj(&w->j);
    kv_u(w, "calls", s->allocs);
    kv_u(w, "frees", s->frees);
    kv_u(w, "bytes", s->bytes);
    if (c->sampled && s->cs != 0) {
        kv_u(w, "est_calls", est_round(s->est_allocs));
        kv_u(w, "est_frees", est_round(s->est_frees));
        kv_u(w, "est_bytes", est_round(s->est_bytes));
    }
    kv_s(w, "api", gl_api_name(s->api));
    kv_s(w, "kind", gl_kind_name(s->kind));
    kv_i(w, "stack", hw_stack(w, s->cs));
    json_end_obj(&w->j);
}

/* {"calls", "frees", "bytes", "stacks", "sampled", "sites"}: the text's
 * first line (every site's sums, exact even when sampled) and the rows.
 * Out of memory in the analysis is an empty member, as in the JSON report. */
void html_calls(struct hw *w, const struct report_ctx *r)
{
    struct call_sites c;
    if (calls_build(r->v, &c) != 0)
        c = (struct call_sites){0};
    json_key(&w->j, "calls");
    json_obj(&w->j);
    kv_u(w, "calls", c.allocs);
    kv_u(w, "frees", c.frees);
    kv_u(w, "bytes", c.bytes);
    kv_u(w, "stacks", c.n);
    kv_b(w, "sampled", c.sampled);
    json_key(&w->j, "sites");
    json_arr(&w->j);
    for (size_t i = 0; i < c.n && i < HT_ROWS; i++)
        site(w, &c, &c.site[i]);
    json_end_arr(&w->j);
    json_end_obj(&w->j);
    calls_free(&c);
}
