/* The page's "tables" member: leaks, peak, invalid frees, teardown and OOM
 * rows, HT_ROWS at most each (the allocation calls are the calls section's
 * own member, calls.c). */
#include "render/html/tables.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analyze.h"
#include "analysis/bad_free_block.h"
#include "analysis/bad_frees.h"
#include "analysis/frag.h"
#include "analysis/history.h"
#include "analysis/oom.h"
#include "analysis/teardown.h"
#include "model/snap_read.h"
#include "model/stackdb.h"
#include "model/symbolize.h"
#include "render/report.h"
#include "util/radix.h"
#include "util/sat.h"
#include "util/sort.h"
#include "util/xalloc.h"

static void put_leak_rows(struct hw *w, const char *k, const struct group_list *l,
                          const struct report_ctx *r)
{
    json_key(&w->j, k);
    json_arr(&w->j);
    size_t n = l->n < HT_ROWS ? l->n : HT_ROWS;
    for (size_t i = 0; i < n; i++) {
        const struct leak_group *g = &l->g[i];
        json_obj(&w->j);
        kv_u(w, "bytes", g->bytes);
        kv_u(w, "count", g->count);
        if (r->s->sampling.mode) { /* light mode: what the sampled ones stand for */
            kv_u(w, "est_bytes", est_round(g->est_bytes));
            kv_u(w, "est_count", est_round(g->est_count));
        }
        kv_s(w, "kind", gl_kind_name(g->kind));
        kv_i(w, "device", g->device);
        kv_s(w, "api", gl_api_name(g->api));
        kv_u(w, "first_seq", g->first_seq);
        kv_u(w, "last_seq", g->last_seq);
        kv_u(w, "first_time_ns", g->first_time_ns);
        kv_u(w, "last_time_ns", g->last_time_ns);
        if (g->rule >= 0)
            kv_s(w, "rule", r->sup->rules[g->rule].name);
        kv_i(w, "stack", hw_stack(w, g->cs));
        json_end_obj(&w->j);
    }
    json_end_arr(&w->j);
}

/* Frees of pointers with no live allocation, most frequent first. */
static void put_bad_free_rows(struct hw *w, const struct report_ctx *r)
{
    struct bad_free_totals t;
    const struct snap_bad_free **v = bad_frees_sorted(r->s, &t);
    json_key(&w->j, "invalid_frees");
    json_arr(&w->j);
    size_t n = t.sites < HT_ROWS ? t.sites : HT_ROWS;
    struct bad_free_block *blocks = bad_free_blocks(r->s);
    for (size_t i = 0; i < n; i++) {
        const struct snap_bad_free *b = v[i];
        const struct bad_free_block *k = &blocks[b - r->s->bad_frees];
        json_obj(&w->j);
        kv_u(w, "count", b->count);
        kv_b(w, "refused", b->flags & GL_BAD_FREE_F_REJECTED);
        kv_s(w, "api", gl_api_name(b->api));
        kv_i(w, "device", b->device);
        kv_u(w, "first_time_ns", b->time_ns);
        kv_i(w, "stack", hw_stack(w, sview_cs(r->v, b->stack_id)));
        /* a double free: where the address was allocated and, with
         * GPULEAK_FREE_STACKS, first freed (-1: not known) */
        const struct snap_event *al, *fr = bad_free_previous(r->s, b, &al);
        kv_i(w, "prev_alloc_stack", fr ? hw_stack(w, sview_cs(r->v, fr->stack_id)) : -1);
        kv_i(w, "prev_free_stack", fr && fr->free_stack_id ? hw_stack(w, sview_cs(r->v, fr->free_stack_id)) : -1);
        kv_u(w, "prev_free_time_ns", fr ? fr->time_ns : 0);
        /* an address inside a block: how far in, the block and where it
         * was made (inside_stack -1: not inside any block known) */
        bool twice = bad_free_is_double(r->s, b), inside = k->found && !twice;
        kv_b(w, "double_free", twice);
        kv_i(w, "inside_stack", inside ? hw_stack(w, sview_cs(r->v, k->stack_id)) : -1);
        kv_u(w, "inside_offset", inside ? b->ptr - k->base : 0);
        kv_u(w, "inside_bytes", inside ? k->bytes : 0);
        kv_u(w, "inside_freed_ns", inside && k->freed ? k->free_time_ns : 0);
        json_end_obj(&w->j);
    }
    json_end_arr(&w->j);
    free(blocks);
    free(v);
}

/* Memory never freed that a context teardown released, most bytes first. */
static void put_teardown_rows(struct hw *w, const struct report_ctx *r)
{
    struct torn_groups t;
    if (torn_build(r->v, &t) != 0)
        t = (struct torn_groups){0};
    json_key(&w->j, "teardown");
    json_arr(&w->j);
    size_t n = t.n < HT_ROWS ? t.n : HT_ROWS;
    for (size_t i = 0; i < n; i++) {
        const struct torn_group *g = &t.g[i];
        json_obj(&w->j);
        kv_u(w, "bytes", g->bytes);
        kv_u(w, "count", g->count);
        kv_s(w, "kind", gl_kind_name(g->kind));
        kv_i(w, "device", g->device);
        kv_s(w, "api", gl_api_name(g->api));
        kv_s(w, "teardown", gl_api_name(g->teardown));
        kv_u(w, "time_ns", g->time_ns);
        kv_s(w, "rule", g->rule >= 0 ? r->sup->rules[g->rule].name : "");
        kv_i(w, "stack", hw_stack(w, g->cs));
        json_end_obj(&w->j);
    }
    json_end_arr(&w->j);
    torn_free(&t);
}

/* Allocations that failed for lack of memory, as the history holds them. */
static void put_oom_rows(struct hw *w, const struct report_ctx *r)
{
    json_key(&w->j, "oom");
    json_arr(&w->j);
    size_t k = 0;
    for (size_t i = 0; r->h->present && i < r->h->nmarks && k < HT_ROWS; i++) {
        const struct hist_mark *m = &r->h->marks[i];
        if (m->type != GL_EV_OOM)
            continue;
        k++;
        json_obj(&w->j);
        kv_u(w, "time_ns", m->time_ns);
        kv_i(w, "device", m->device);
        kv_s(w, "api", gl_api_name(m->api));
        kv_u(w, "requested", m->size);
        kv_u(w, "mem_free", m->mem_free);
        kv_u(w, "mem_total", m->mem_total);
        kv_u(w, "live", m->live_bytes);
        kv_u(w, "elsewhere", oom_elsewhere(m));
        kv_u(w, "then_time_ns", m->then_seq ? m->then_time_ns : 0);
        kv_b(w, "then_same_stack", m->then_seq && sview_cs(r->v, m->then_stack_id) == sview_cs(r->v, m->stack_id));
        kv_i(w, "stack", hw_stack(w, sview_cs(r->v, m->stack_id)));
        json_end_obj(&w->j);
    }
    json_end_arr(&w->j);
}

void html_tables(struct hw *w, const struct report_ctx *r)
{
    const struct analysis *a = r->a;
    json_key(&w->j, "tables");
    json_obj(&w->j);
    put_oom_rows(w, r);
    put_leak_rows(w, "leaks", &a->leaks, r);
    kv_u(w, "leaks_total", a->leaks.total);
    kv_u(w, "leaks_hidden_bytes", a->leaks.hidden_bytes);
    put_leak_rows(w, "cached", &a->cached, r);
    put_leak_rows(w, "suppressed", &a->suppressed, r);
    put_leak_rows(w, "mapped", &a->mapped, r);
    put_leak_rows(w, "modules", &a->modules, r);
    put_bad_free_rows(w, r);
    put_teardown_rows(w, r);
    json_key(&w->j, "peak");
    json_arr(&w->j);
    size_t k = 0, total = 0;
    for (size_t d = 0; d < a->ndevs; d++) {
        total += a->devs[d].ncomp_total;
        for (size_t i = 0; i < a->devs[d].ncomp && k < HT_ROWS; i++) {
            const struct peak_item *p = &a->devs[d].comp[i];
            k++;
            json_obj(&w->j);
            kv_i(w, "device", p->device);
            kv_u(w, "bytes", p->bytes);
            kv_u(w, "count", p->count);
            if (r->s->sampling.mode) { /* as the leak rows' */
                kv_u(w, "est_bytes", est_round(p->est_bytes));
                kv_u(w, "est_count", est_round(p->est_count));
            }
            kv_u(w, "device_peak", a->devs[d].dev->peak_bytes);
            kv_i(w, "stack", hw_stack(w, p->cs));
            json_end_obj(&w->j);
        }
    }
    json_end_arr(&w->j);
    kv_u(w, "peak_total", total);
    json_end_obj(&w->j);
}
