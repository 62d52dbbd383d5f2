#include "render/json/ledger.h"

#include "analysis/ledger.h"
#include "render/report.h"

static void counted(struct json *j, const char *bytes_key, uint64_t bytes, const char *count_key,
                    uint64_t count)
{
    json_key(j, bytes_key); json_u64(j, bytes);
    json_key(j, count_key); json_u64(j, count);
}

static void device(struct json *j, const struct ledger_dev *d)
{
    json_obj(j);
    json_key(j, "device"); json_i64(j, d->device);
    json_key(j, "mem_total"); json_u64(j, d->mem_total);
    json_key(j, "mem_free"); json_u64(j, d->mem_free);
    json_key(j, "used_bytes"); json_u64(j, d->used);
    json_key(j, "live_bytes"); json_u64(j, d->live);
    json_key(j, "live_by_kind");
    json_arr(j);
    for (unsigned k = 0; k < GL_KIND_COUNT; k++) {
        if (!ledger_resident(k) || d->kind_count[k] == 0)
            continue;
        json_obj(j);
        json_key(j, "kind"); json_str(j, gl_kind_name(k));
        json_key(j, "kind_code"); json_u64(j, k);
        json_key(j, "bytes"); json_u64(j, d->kind_bytes[k]);
        json_key(j, "count"); json_u64(j, d->kind_count[k]);
        json_end_obj(j);
    }
    json_end_arr(j);
    json_key(j, "allocator_caches_bytes"); json_u64(j, d->cached);
    counted(j, "pool_reserve_idle_bytes", d->pool_idle, "pools", d->npools);
    json_key(j, "graph_pool_reserve_idle_bytes"); json_u64(j, d->graph_idle);
    json_key(j, "graph_pool"); json_bool(j, d->have_graph_pool);
    counted(j, "modules_bytes", d->modules, "modules_count", d->nmodules);
    json_key(j, "context");
    json_obj(j);
    json_key(j, "measured"); json_bool(j, d->ctx_measured);
    json_key(j, "used_at_create_bytes");
    if (d->ctx_measured)
        json_u64(j, d->ctx);
    else
        json_null(j);
    json_key(j, "creations"); json_u64(j, d->ctx_creations);
    json_end_obj(j);
    json_key(j, "before_attach");
    if (d->attached) {
        json_obj(j);
        json_key(j, "bytes"); json_u64(j, d->before_attach);
        json_key(j, "used_at_attach_bytes"); json_u64(j, d->before_attach_used);
        json_key(j, "freed_bytes"); json_u64(j, d->before_attach_freed);
        json_key(j, "frees"); json_u64(j, d->before_attach_frees);
        json_key(j, "pytorch");
        if (d->torch_status == 0) {
            json_null(j);
        } else {
            json_obj(j);
            json_key(j, "answered"); json_bool(j, d->torch_status == GL_BEFORE_ATTACH_TORCH_ANSWERED);
            json_key(j, "bytes"); json_u64(j, d->torch_left);
            json_key(j, "at_attach_bytes"); json_u64(j, d->torch_at_attach);
            json_key(j, "segments"); json_u64(j, d->torch_segments);
            json_key(j, "freed_bytes"); json_u64(j, d->torch_freed);
            json_key(j, "frees"); json_u64(j, d->torch_frees);
            json_key(j, "tensor_bytes"); json_u64(j, d->torch_tensor_bytes);
            json_key(j, "tensors"); json_u64(j, d->torch_tensors);
            json_end_obj(j);
        }
        json_key(j, "rest_bytes"); json_u64(j, d->before_attach_rest);
        json_end_obj(j);
    } else {
        json_null(j);
    }
    counted(j, "ipc_bytes", d->ipc, "ipc_count", d->nipc);
    counted(j, "external_bytes", d->external, "external_count", d->nexternal);
    json_key(j, "explained_bytes"); json_u64(j, d->explained);
    json_key(j, "unexplained_bytes"); json_i64(j, d->remainder);
    json_key(j, "unexplained_pct"); json_double(j, ledger_remainder_pct(d));
    counted(j, "managed_not_counted_bytes", d->managed, "managed_not_counted_count", d->nmanaged);
    json_end_obj(j);
}

void json_ledger(struct report_ctx *r, struct json *j)
{
    json_key(j, "ledger");
    json_arr(j);
    for (size_t i = 0; r->lg != NULL && i < r->lg->ndev; i++)
        device(j, &r->lg->dev[i]);
    json_end_arr(j);
}
