/* "ledger": per device with the driver's view, its rows as the text report
 * has them (label, signed bytes, whether it is a part of the row above
 * rather than a row of its own); the page draws a card per device and the
 * table "Ledger" from it. */
#include "render/html/ledger.h"

#include <stdio.h>

#include "analysis/ledger.h"
#include "render/report.h"

static void row(struct hw *w, const char *what, int64_t bytes, bool known, bool part)
{
    json_obj(&w->j);
    kv_s(w, "what", what);
    json_key(&w->j, "bytes");
    if (known)
        json_i64(&w->j, bytes);
    else
        json_null(&w->j);
    kv_b(w, "part", part);
    json_end_obj(&w->j);
}

static int64_t s64(uint64_t v) { return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v; }

static void device(struct hw *w, const struct ledger_dev *d)
{
    json_obj(&w->j);
    kv_i(w, "device", d->device);
    kv_u(w, "used_bytes", d->used);
    kv_u(w, "mem_total", d->mem_total);
    kv_i(w, "unexplained_bytes", d->remainder);
    kv_d(w, "unexplained_pct", ledger_remainder_pct(d));
    json_key(&w->j, "rows");
    json_arr(&w->j);
    row(w, "live allocations of this process", s64(d->live), true, false);
    for (unsigned k = 0; k < GL_KIND_COUNT; k++)
        if (ledger_resident(k) && d->kind_count[k]) {
            char what[64];
            snprintf(what, sizeof what, "%s: %llu allocation%s", gl_kind_name(k),
                     (unsigned long long)d->kind_count[k], d->kind_count[k] == 1 ? "" : "s");
            row(w, what, s64(d->kind_bytes[k]), true, true);
        }
    row(w, w->r->s->sampling.mode ? "of them, held by allocator caches (built-in rules; estimated, sampled)"
                                  : "of them, held by allocator caches (built-in rules)",
        s64(d->cached), true, true);
    row(w, "memory pools' reserve, not allocated", s64(d->pool_idle), true, false);
    row(w, "graph memory pool's reserve, not allocated", s64(d->graph_idle), true, false);
    row(w, "loaded modules", s64(d->modules), true, false);
    row(w, d->ctx_measured ? "CUDA context(s), and other processes when it was created"
                           : "CUDA context: not measured (in \"unexplained\")",
        s64(d->ctx), d->ctx_measured, false);
    if (d->attached)
        row(w, "made before attach (gpuleak attach), CUDA context(s) included", s64(d->before_attach), true, false);
    if (d->torch_status != 0) { /* split by what PyTorch said at the attach */
        bool known = d->torch_status == GL_BEFORE_ATTACH_TORCH_ANSWERED;
        row(w, known ? "of them, PyTorch's segments, reserved before the attach"
                     : "of them, PyTorch's segments: not known, PyTorch has not answered the attach yet",
            s64(d->torch_left), known, true);
        row(w, "of them, the rest: CUDA context(s), other libraries, other processes", s64(d->before_attach_rest),
            known, true);
    }
    row(w, "mapped from other processes (their allocations)", s64(d->ipc), true, false);
    row(w, "other APIs' memory imported here (external)", s64(d->external), true, false);
    row(w, "unexplained: other processes, or memory gpuleak did not see", d->remainder, true, false);
    json_end_arr(&w->j);
    kv_u(w, "managed_not_counted_bytes", d->managed);
    json_end_obj(&w->j);
}

void html_ledger(struct hw *w, const struct report_ctx *r)
{
    json_key(&w->j, "ledger");
    json_arr(&w->j);
    for (size_t i = 0; r->lg != NULL && i < r->lg->ndev; i++)
        device(w, &r->lg->dev[i]);
    json_end_arr(&w->j);
}
