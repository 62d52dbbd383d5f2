/* Machine-readable report; the schema is documented in docs/json-output.md
 * (fields may be added within a schema_version, never renamed or retyped). */
#include "render/report.h"
#include "render/sections.h"

#include "analysis/analyze.h"
#include "analysis/frag.h"
#include "analysis/history.h"
#include "model/reason.h"
#include "model/snap_read.h"
#include "model/stackdb.h"
#include "model/suppress.h"
#include "model/symbolize.h"
#include "render/json/bad_frees.h"
#include "render/json/calls.h"
#include "render/json/common.h"
#include "render/json/json.h"
#include "render/json/json_sections.h"
#include "render/json/ledger.h"
#include "render/json/oom.h"
#include "render/json/phases.h"
#include "render/json/output_json.h"
#include "render/json/teardown.h"
#include "render/json/torch.h"

#define SCHEMA_VERSION 2

static void snapshot_info(struct report_ctx *r, struct json *j)
{
    const struct snap_process *p = &r->s->proc;
    json_key(j, "snapshot");
    json_obj(j);
    json_key(j, "path"); json_str(j, r->path);
    json_key(j, "pid"); json_u64(j, p->pid);
    json_key(j, "ppid"); json_u64(j, p->ppid);
    json_key(j, "rank"); json_rank(j, p);
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
    json_key(j, "pools"); json_u64(j, r->s->npools);
    json_key(j, "vmm_entries"); json_u64(j, r->s->nvmms);
    json_key(j, "labels"); json_u64(j, r->s->nlabels);
    /* null: every stack captured; else GPULEAK_MODE=light's byte sampling */
    json_key(j, "sampling");
    if (r->s->sampling.mode) {
        json_obj(j);
        json_key(j, "sampled"); json_bool(j, true);
        json_key(j, "mode"); json_str(j, "bytes");
        json_key(j, "sample_bytes"); json_u64(j, r->s->sampling.sample_bytes);
        json_end_obj(j);
    } else {
        json_null(j);
    }
    json_end_obj(j);
}

static void options(struct report_ctx *r, struct json *j)
{
    json_key(j, "options");
    json_obj(j);
    json_key(j, "group_depth"); json_u64(j, r->db->o.group_depth);
    json_key(j, "all_frames"); json_bool(j, r->db->o.all_frames);
    json_key(j, "default_suppressions"); json_bool(j, r->default_suppressions);
    json_key(j, "suppressions_file"); json_str(j, r->suppressions_file);
    json_end_obj(j);
}

static void groups(struct report_ctx *r, struct json *j, const struct group_list *l)
{
    json_arr(j);
    for (size_t i = 0; i < l->n; i++) {
        const struct leak_group *g = &l->g[i];
        json_obj(j);
        json_group_head(j, g->bytes, g->count, g->kind, g->device, g->api);
        {
            const char *via = g->cs ? r->db->cs[g->cs].via_static : NULL;
            json_key(j, "via_static_runtime");
            if (via)
                json_str(j, via);
            else
                json_null(j);
        }
        json_key(j, "stack_id"); json_u64(j, g->stack_id);
        if (r->s->sampling.mode) {
            /* bytes and count are the sampled allocations'; these, what
             * they stand for (docs/json-output.md) */
            json_key(j, "estimated_bytes"); json_u64(j, est_round(g->est_bytes));
            json_key(j, "estimated_count"); json_u64(j, est_round(g->est_count));
        }
        json_key(j, "first_seq"); json_u64(j, g->first_seq);
        json_key(j, "last_seq"); json_u64(j, g->last_seq);
        json_key(j, "first_time_ns"); json_u64(j, g->first_time_ns);
        json_key(j, "last_time_ns"); json_u64(j, g->last_time_ns);
        if (g->rule >= 0) {
            json_key(j, "rule");
            json_str(j, r->sup->rules[g->rule].name);
        }
        json_frames(j, r->db, g->cs);
        json_end_obj(j);
    }
    json_end_arr(j);
}

static void rule_list(struct report_ctx *r, struct json *j, bool builtin)
{
    json_key(j, "rules");
    json_arr(j);
    for (size_t i = 0; i < r->a->nrules; i++) {
        if (r->sup->rules[i].builtin != builtin || !r->a->rules[i].count)
            continue;
        json_obj(j);
        json_key(j, "name"); json_str(j, r->sup->rules[i].name);
        json_key(j, "bytes"); json_u64(j, r->a->rules[i].bytes);
        json_key(j, "count"); json_u64(j, r->a->rules[i].count);
        json_end_obj(j);
    }
    json_end_arr(j);
}

/* A list of groups as an object; with_rules: and its rules' totals (the
 * built-in ones or the user's, per `builtin`). */
static void list_obj(struct report_ctx *r, struct json *j, const char *key,
                     const struct group_list *l, bool with_rules, bool builtin)
{
    json_key(j, key);
    json_obj(j);
    json_key(j, "bytes"); json_u64(j, l->bytes);
    json_key(j, "count"); json_u64(j, l->count);
    json_key(j, "groups_total"); json_u64(j, l->total);
    if (with_rules)
        rule_list(r, j, builtin);
    json_key(j, "groups");
    groups(r, j, l);
    json_end_obj(j);
}

static void leaks(struct report_ctx *r, struct json *j)
{
    const struct analysis *a = r->a;
    json_leaks_by_growth(r, j); /* PyTorch's leaks first, as in the text */
    json_key(j, "leaks");
    groups(r, j, &a->leaks);

    json_key(j, "leak_summary");
    json_obj(j);
    json_key(j, "bytes"); json_u64(j, a->total_bytes);
    json_key(j, "count"); json_u64(j, a->total_count);
    json_key(j, "groups"); json_u64(j, a->leaks.total);
    json_key(j, "groups_shown"); json_u64(j, a->leaks.n);
    json_key(j, "hidden_bytes"); json_u64(j, a->leaks.hidden_bytes);
    json_key(j, "hidden_count"); json_u64(j, a->leaks.hidden_count);
    json_key(j, "leaked_bytes"); json_u64(j, a->leaks.bytes);
    json_key(j, "leaked_count"); json_u64(j, a->leaks.count);
    json_key(j, "sampled"); json_bool(j, r->s->sampling.mode != 0);
    if (r->s->sampling.mode) {
        /* in leaked_bytes, not in any group: their bytes are in the groups' estimates */
        json_key(j, "unsampled_bytes"); json_u64(j, a->leaks.unsampled_bytes);
        json_key(j, "unsampled_count"); json_u64(j, a->leaks.unsampled_count);
    }
    json_key(j, "cached_bytes"); json_u64(j, a->cached.bytes);
    json_key(j, "cached_count"); json_u64(j, a->cached.count);
    json_key(j, "suppressed_bytes"); json_u64(j, a->suppressed.bytes);
    json_key(j, "suppressed_count"); json_u64(j, a->suppressed.count);
    json_key(j, "mapped_bytes"); json_u64(j, a->mapped.bytes);
    json_key(j, "mapped_count"); json_u64(j, a->mapped.count);
    json_key(j, "cuda_modules_bytes"); json_u64(j, a->modules.bytes);
    json_key(j, "cuda_modules_count"); json_u64(j, a->modules.count);
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
    list_obj(r, j, "allocator_caches", &a->cached, true, true);
    list_obj(r, j, "suppressed", &a->suppressed, true, false);
    /* Other processes' memory still mapped, and modules still loaded: no
     * rule list (built-in rules do not apply to them; user rules move them
     * to "suppressed"). */
    list_obj(r, j, "mapped", &a->mapped, false, false);
    list_obj(r, j, "cuda_modules", &a->modules, false, false);
}

static void peak_history(struct report_ctx *r, struct json *j, int32_t device)
{
    const struct hist_dev *hd = NULL;
    for (size_t i = 0; i < r->h->ndev; i++)
        if (r->h->dev[i].device == device)
            hd = &r->h->dev[i];
    json_key(j, "peak_history");
    if (!r->h->present || !hd) {
        json_null(j);
        return;
    }
    json_obj(j);
    json_key(j, "covered"); json_bool(j, hd->peak_covered);
    json_key(j, "annotation_known"); json_bool(j, hd->peak_mark_known);
    const struct hist_mark *m = hd->peak_mark >= 0 ? &r->h->marks[hd->peak_mark] : NULL;
    json_key(j, "annotation");
    if (m && m->label)
        json_strn(j, m->label->text.s, m->label->text.len);
    else
        json_null(j);
    json_key(j, "annotation_seq"); json_u64(j, m ? m->seq : 0);
    json_key(j, "annotation_time_ns"); json_u64(j, m ? m->time_ns : 0);
    json_key(j, "before");
    json_arr(j);
    for (size_t i = 0; i < hd->nbefore; i++) {
        const struct snap_event *e = &r->s->events[hd->before[i]];
        json_obj(j);
        json_key(j, "seq"); json_u64(j, e->seq);
        json_key(j, "time_ns"); json_u64(j, e->time_ns);
        json_key(j, "size"); json_u64(j, e->size);
        json_key(j, "ptr"); json_u64(j, e->ptr);
        json_key(j, "kind"); json_str(j, gl_kind_name(e->kind));
        json_key(j, "api"); json_str(j, gl_api_name(e->api));
        json_key(j, "stack_id"); json_u64(j, e->stack_id);
        json_frames(j, r->db, sview_cs(r->v, e->stack_id));
        json_end_obj(j);
    }
    json_end_arr(j);
    json_key(j, "by_kind");
    json_arr(j);
    for (unsigned k = 0; k < GL_KIND_SLOTS; k++) {
        if (!hd->has_kind[k])
            continue;
        json_obj(j);
        json_key(j, "kind"); json_str(j, gl_kind_name(k));
        json_key(j, "kind_code"); json_u64(j, k);
        json_key(j, "peak_bytes"); json_u64(j, hd->kind_max[k]);
        json_key(j, "peak_time_ns"); json_u64(j, hd->kind_max_time_ns[k]);
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
            if (r->s->sampling.mode) { /* as a leak group's (sample_scale) */
                json_key(j, "estimated_bytes"); json_u64(j, est_round(dr->comp[i].est_bytes));
                json_key(j, "estimated_count"); json_u64(j, est_round(dr->comp[i].est_count));
            }
            json_frames(j, r->db, dr->comp[i].cs);
            json_end_obj(j);
        }
        json_end_arr(j);
        json_key(j, "peak_composition_total"); json_u64(j, dr->ncomp_total);
        if (r->s->sampling.mode) { /* not an item: in the estimates above */
            json_key(j, "peak_unsampled_bytes"); json_u64(j, dr->comp_unsampled_bytes);
            json_key(j, "peak_unsampled_count"); json_u64(j, dr->comp_unsampled_count);
        }
        peak_history(r, j, v->device);
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

/* The blocks of render/sections.c's rows, in the order they are written. */
void json_leaks_block(struct report_ctx *r, struct json *j)
{
    leaks(r, j);
    json_bad_frees(r, j);
    json_torn(r, j);
}

void json_calls_block(struct report_ctx *r, struct json *j) { json_calls(r, j); }

void json_torch_block(struct report_ctx *r, struct json *j)
{
    json_torch(r, j);
    json_torch_steps(r, j);
}
void json_devices_block(struct report_ctx *r, struct json *j) { devices(r, j); }
void json_peak_block(struct report_ctx *r, struct json *j) { json_phases(r, j); }
void json_oom_block(struct report_ctx *r, struct json *j) { json_oom(r, j); }
void json_timeline_block(struct report_ctx *r, struct json *j) { json_timeline(r, j); }
void json_fragmentation_block(struct report_ctx *r, struct json *j) { json_fragmentation(r, j); }
void json_ledger_block(struct report_ctx *r, struct json *j) { json_ledger(r, j); }

void output_json(struct report_ctx *r)
{
    struct json j;
    json_init(&j, r->out);
    json_obj(&j);
    json_key(&j, "format"); json_str(&j, "gpuleak-report");
    json_key(&j, "schema_version"); json_u64(&j, SCHEMA_VERSION);
    json_key(&j, "mode"); json_str(&j, "report");
    snapshot_info(r, &j);
    options(r, &j);
    sections_json(r, &j);
    modules(r, &j);
    json_key(&j, "warnings");
    json_arr(&j);
    for (size_t i = 0; i < r->nwarnings; i++)
        json_str(&j, r->warnings[i]);
    json_end_arr(&j);
    json_end_obj(&j);
}
