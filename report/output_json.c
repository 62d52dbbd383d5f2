/* Machine-readable report; the schema is documented in docs/json-output.md
 * (schema_version 1: fields may be added, never renamed or retyped). */
#include "report.h"

#include "json.h"

static void stack_frames(struct report_ctx *r, struct json *j, uint32_t id)
{
    json_key(j, "frames");
    json_arr(j);
    const struct snap_stack *st = snap_find_stack(r->s, id);
    if (st) {
        const uint64_t *pcs = snap_stack_pcs(r->s, st);
        for (uint32_t i = 0; i < st->depth; i++) {
            size_t n;
            const struct sym_frame *fr = sym_pc(r->sy, pcs[i], &n);
            for (size_t k = 0; k < n; k++) {
                json_obj(j);
                json_key(j, "function"); json_str(j, fr[k].function);
                json_key(j, "file"); json_str(j, fr[k].file);
                json_key(j, "line"); json_u64(j, fr[k].line);
                json_key(j, "module"); json_str(j, fr[k].module);
                json_key(j, "address"); json_u64(j, fr[k].address);
                json_key(j, "offset"); json_u64(j, fr[k].offset);
                json_key(j, "inlined"); json_bool(j, fr[k].inlined);
                json_end_obj(j);
            }
        }
    }
    json_end_arr(j);
}

static void snapshot_info(struct report_ctx *r, struct json *j)
{
    const struct snap_process *p = &r->s->proc;
    json_key(j, "snapshot");
    json_obj(j);
    json_key(j, "path"); json_str(j, r->path);
    json_key(j, "pid"); json_u64(j, p->pid);
    json_key(j, "ppid"); json_u64(j, p->ppid);
    json_key(j, "rank"); json_u64(j, p->rank);
    json_key(j, "reason"); json_str(j, reason_name(p->reason));
    json_key(j, "reason_code"); json_u64(j, p->reason);
    json_key(j, "final"); json_bool(j, p->flags & GL_SNAP_F_FINAL);
    json_key(j, "index"); json_u64(j, p->index);
    json_key(j, "host"); json_strn(j, p->host.s, p->host.len);
    json_key(j, "exe"); json_strn(j, p->exe.s, p->exe.len);
    json_key(j, "argv");
    json_arr(j);
    for (uint32_t i = 0; i < p->argc; i++)
        json_strn(j, p->argv[i].s, p->argv[i].len);
    json_end_arr(j);
    json_key(j, "start_unix_ns"); json_u64(j, p->start_unix_ns);
    json_key(j, "snapshot_unix_ns"); json_u64(j, p->snapshot_unix_ns);
    json_key(j, "duration_ns"); json_u64(j, p->snapshot_mono_ns);
    json_key(j, "depth_limit"); json_u64(j, p->depth_limit);
    json_key(j, "file_size"); json_u64(j, r->s->file_size);
    json_key(j, "live_allocations"); json_u64(j, r->s->nallocs);
    json_key(j, "stacks"); json_u64(j, r->s->nstacks);
    json_key(j, "events"); json_u64(j, r->s->nevents);
    json_end_obj(j);
}

static void leaks(struct report_ctx *r, struct json *j)
{
    const struct analysis *a = r->a;
    json_key(j, "leaks");
    json_arr(j);
    for (size_t i = 0; i < a->ngroups; i++) {
        const struct leak_group *g = &a->groups[i];
        json_obj(j);
        json_key(j, "bytes"); json_u64(j, g->bytes);
        json_key(j, "count"); json_u64(j, g->count);
        json_key(j, "kind"); json_str(j, gl_kind_name(g->kind));
        json_key(j, "kind_code"); json_u64(j, g->kind);
        json_key(j, "device"); json_i64(j, g->device);
        json_key(j, "api"); json_str(j, gl_api_name(g->api));
        json_key(j, "api_code"); json_u64(j, g->api);
        json_key(j, "stack_id"); json_u64(j, g->stack_id);
        json_key(j, "first_seq"); json_u64(j, g->first_seq);
        json_key(j, "last_seq"); json_u64(j, g->last_seq);
        json_key(j, "first_time_ns"); json_u64(j, g->first_time_ns);
        json_key(j, "last_time_ns"); json_u64(j, g->last_time_ns);
        stack_frames(r, j, g->stack_id);
        json_end_obj(j);
    }
    json_end_arr(j);

    json_key(j, "leak_summary");
    json_obj(j);
    json_key(j, "bytes"); json_u64(j, a->total_bytes);
    json_key(j, "count"); json_u64(j, a->total_count);
    json_key(j, "groups"); json_u64(j, a->ngroups_total);
    json_key(j, "groups_shown"); json_u64(j, a->ngroups);
    json_key(j, "hidden_bytes"); json_u64(j, a->hidden_bytes);
    json_key(j, "hidden_count"); json_u64(j, a->hidden_count);
    json_key(j, "by_kind");
    json_arr(j);
    for (size_t i = 0; i < a->nby_kind; i++) {
        json_obj(j);
        json_key(j, "kind"); json_str(j, gl_kind_name(a->by_kind[i].kind));
        json_key(j, "kind_code"); json_u64(j, a->by_kind[i].kind);
        json_key(j, "device"); json_i64(j, a->by_kind[i].device);
        json_key(j, "bytes"); json_u64(j, a->by_kind[i].bytes);
        json_key(j, "count"); json_u64(j, a->by_kind[i].count);
        json_end_obj(j);
    }
    json_end_arr(j);
    json_end_obj(j);
}

static void devices(struct report_ctx *r, struct json *j)
{
    const struct analysis *a = r->a;
    json_key(j, "devices");
    json_arr(j);
    for (size_t d = 0; d < a->ndevs; d++) {
        const struct device_report *dr = &a->devs[d];
        const struct snap_device *v = dr->dev;
        json_obj(j);
        json_key(j, "device"); json_i64(j, v->device);
        json_key(j, "live_bytes"); json_u64(j, v->live_bytes);
        json_key(j, "live_count"); json_u64(j, v->live_count);
        json_key(j, "peak_bytes"); json_u64(j, v->peak_bytes);
        json_key(j, "peak_seq"); json_u64(j, v->peak_seq);
        json_key(j, "peak_time_ns"); json_u64(j, v->peak_time_ns);
        json_key(j, "alloc_count"); json_u64(j, v->alloc_count);
        json_key(j, "free_count"); json_u64(j, v->free_count);
        json_key(j, "alloc_bytes_total"); json_u64(j, v->alloc_bytes_total);
        json_key(j, "failed_count"); json_u64(j, v->failed_count);
        json_key(j, "unknown_free_count"); json_u64(j, v->unknown_free_count);
        json_key(j, "mem_free"); json_u64(j, v->mem_free);
        json_key(j, "mem_total"); json_u64(j, v->mem_total);
        json_key(j, "peak_composition");
        json_arr(j);
        for (size_t i = 0; i < dr->ncomp; i++) {
            json_obj(j);
            json_key(j, "bytes"); json_u64(j, dr->comp[i].bytes);
            json_key(j, "count"); json_u64(j, dr->comp[i].count);
            json_key(j, "stack_id"); json_u64(j, dr->comp[i].stack_id);
            stack_frames(r, j, dr->comp[i].stack_id);
            json_end_obj(j);
        }
        json_end_arr(j);
        json_key(j, "peak_composition_total"); json_u64(j, dr->ncomp_total);
        json_end_obj(j);
    }
    json_end_arr(j);
}

static void hexstr(struct json *j, const uint8_t *b, size_t n)
{
    char buf[2 * GL_SNAP_MAX_BUILD_ID + 1];
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        buf[2 * i] = digits[b[i] >> 4];
        buf[2 * i + 1] = digits[b[i] & 15];
    }
    json_strn(j, buf, 2 * n);
}

static void modules(struct report_ctx *r, struct json *j)
{
    json_key(j, "modules");
    json_arr(j);
    for (size_t i = 0; i < r->s->nmodules; i++) {
        const struct snap_module *m = &r->s->modules[i];
        json_obj(j);
        json_key(j, "id"); json_u64(j, i);
        json_key(j, "path"); json_strn(j, m->path.s, m->path.len);
        json_key(j, "load_bias"); json_u64(j, m->load_bias);
        json_key(j, "start"); json_u64(j, m->start);
        json_key(j, "end"); json_u64(j, m->end);
        json_key(j, "build_id");
        if (m->build_id_len)
            hexstr(j, m->build_id, m->build_id_len);
        else
            json_null(j);
        json_key(j, "status");
        json_str(j, sym_module_status_name(sym_module_status(r->sy, i)));
        json_end_obj(j);
    }
    json_end_arr(j);
}

void output_json(struct report_ctx *r)
{
    struct json j;
    json_init(&j, r->out);
    json_obj(&j);
    json_key(&j, "format"); json_str(&j, "gpuleak-report");
    json_key(&j, "schema_version"); json_u64(&j, 1);
    snapshot_info(r, &j);
    leaks(r, &j);
    devices(r, &j);
    modules(r, &j);
    json_key(&j, "warnings");
    json_arr(&j);
    for (size_t i = 0; i < r->nwarnings; i++)
        json_str(&j, r->warnings[i]);
    json_end_arr(&j);
    json_end_obj(&j);
}
