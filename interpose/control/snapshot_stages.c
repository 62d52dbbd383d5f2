#include "control/snapshot_stages.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/config.h"
#include "base/internal.h"
#include "base/modules.h"
#include "base/procenv.h"
#include "capture/pyframes.h"
#include "control/outfile.h"
#include "control/torch_steps.h"
#include "control/torch_decode.h"
#include "cuda/before_attach.h"
#include "cuda/ctx_cost.h"
#include "cuda/driver_view.h"
#include "cuda/pools.h"
#include "cuda/vmm.h"
#include "snapshot_format.h"
#include "state/bad_free.h"
#include "state/stack_table.h"
#include "state/teardown.h"
#include "state/track.h"
#include "state/track_copy.h"

/* One stage: the records of one type (snapshot_stages.h). */
typedef void write_stage_fn(struct gl_snap_writer *w, const struct gl_snap_inputs *in);

/* ---- the process ---------------------------------------------------------- */

static size_t argv_count(const struct gl_snap_inputs *in)
{
    size_t argc = 0;
    for (size_t i = 0; i < in->cmdline_len; i++)
        if (in->cmdline[i] == '\0')
            argc++;
    if (in->cmdline_len > 0 && in->cmdline[in->cmdline_len - 1] != '\0')
        argc++; /* truncated last argument */
    return argc < GL_SNAP_MAX_ARGS ? argc : GL_SNAP_MAX_ARGS;
}

static void write_process(struct gl_snap_writer *w, const struct gl_snap_inputs *in)
{
    char host[256];
    if (gethostname(host, sizeof host) != 0)
        host[0] = '\0';
    host[sizeof host - 1] = '\0';
    size_t hostlen = strlen(host), exelen = strlen(in->exe_path);
    size_t argc = argv_count(in);
    const char *cmdline = in->cmdline, *cmdline_end = in->cmdline + in->cmdline_len;

    uint64_t len = GL_PROCESS_FIXED_SIZE + 4 + hostlen + 4 + exelen + 4;
    const char *arg = cmdline;
    for (size_t i = 0; i < argc; i++) {
        size_t n = strnlen(arg, (size_t)(cmdline_end - arg));
        len += 4 + n;
        arg += n + 1;
    }
    gl_snap_record(w, GL_REC_PROCESS, 1, len);
    w->index = in->index;
    w->index_at[0] = w->offset + GL_WIRE_OFF(process, index);
    GL_SNAP_PART(w, process, .pid = (uint32_t)getpid(), .ppid = (uint32_t)getppid(), .rank = gl_rank(),
                 .reason = in->reason, .index = in->index, .start_unix_ns = gl_start_unix_ns,
                 .snapshot_unix_ns = in->snap_unix, .snapshot_mono_ns = in->snap_mono,
                 .flags = in->flags | (gl_rank_set() ? 0 : GL_SNAP_F_NO_RANK),
                 .depth_limit = (uint32_t)gl_config.depth);
    gl_snap_str(w, host, hostlen);
    gl_snap_str(w, in->exe_path, exelen);
    gl_snap_u32(w, (uint32_t)argc);
    arg = cmdline;
    for (size_t i = 0; i < argc; i++) {
        size_t n = strnlen(arg, (size_t)(cmdline_end - arg));
        gl_snap_str(w, arg, n);
        arg += n + 1;
    }
}

static void write_env(struct gl_snap_writer *w, const struct gl_snap_inputs *in)
{
    (void)in;
    const struct gl_env_set *env = gl_env_current();
    size_t count = 0;
    uint64_t len = GL_ENV_FIXED_SIZE;
    for (size_t i = 0; i < env->count; i++) {
        if (!env->present[i])
            continue;
        count++;
        len += 4 + strlen(gl_env_names[i]) + 1 + strlen(env->values[i]);
    }
    if (count == 0)
        return;
    gl_snap_record(w, GL_REC_ENV, 1, len);
    GL_SNAP_PART(w, env, .count = (uint32_t)count);
    for (size_t i = 0; i < env->count; i++) {
        if (!env->present[i])
            continue;
        size_t nl = strlen(gl_env_names[i]), vl = strlen(env->values[i]);
        gl_snap_u32(w, (uint32_t)(nl + 1 + vl));
        gl_snap_bytes(w, gl_env_names[i], nl);
        gl_snap_bytes(w, "=", 1);
        gl_snap_bytes(w, env->values[i], vl);
    }
}

/* Light mode: the stacks are a sample (capture/sample.h), and which stack
 * the allocations not sampled carry. */
static void write_sampling(struct gl_snap_writer *w, const struct gl_snap_inputs *in)
{
    (void)in;
    if (gl_config.mode != GL_MODE_LIGHT)
        return;
    const struct gl_stack *u = gl_stack_unsampled();
    gl_snap_record(w, GL_REC_SAMPLING, 1, GL_SAMPLING_FIXED_SIZE);
    GL_SNAP_PART(w, sampling, .mode = GL_SAMPLING_BYTES, .unsampled_stack_id = u != NULL ? u->id : 0,
                 .sample_bytes = gl_config.sample_bytes);
}

static void write_modules(struct gl_snap_writer *w, const struct gl_snap_inputs *in)
{
    const struct gl_module_list *mods = in->mods;
    for (size_t i = 0; i < mods->count; i++) {
        const struct gl_module *m = &mods->items[i];
        size_t plen = strlen(m->path);
        if (plen > GL_SNAP_MAX_STRING)
            plen = GL_SNAP_MAX_STRING;
        gl_snap_record(w, GL_REC_MODULE, 1, GL_MODULE_FIXED_SIZE + m->build_id_len + 4 + plen);
        GL_SNAP_PART(w, module, .load_bias = m->bias, .start = m->start, .end = m->end,
                     .build_id_len = m->build_id_len);
        gl_snap_bytes(w, m->build_id, m->build_id_len);
        gl_snap_str(w, m->path, plen);
    }
}

/* ---- frames and stacks ------------------------------------------------------ */

static void write_pyframe(uint32_t id, uint32_t line, const char *file, size_t file_len,
                          const char *func, size_t func_len, void *arg)
{
    struct gl_snap_writer *w = arg;
    if (id > w->pyframe_top)
        w->pyframe_top = id;
    gl_snap_record(w, GL_REC_PYFRAME, 1, GL_PYFRAME_FIXED_SIZE + 4 + file_len + 4 + func_len);
    GL_SNAP_PART(w, pyframe, .id = id, .line = line);
    gl_snap_str(w, file, file_len);
    gl_snap_str(w, func, func_len);
}

/* The process's Python frames, then those of PyTorch's view (its own
 * table, view_stacks.h), numbered after the process's: torch_frame_base
 * (the process's highest) + its own. */
static void write_pyframes(struct gl_snap_writer *w, const struct gl_snap_inputs *in)
{
    gl_py_for_each(write_pyframe, w);
    w->torch_frame_base = w->pyframe_top;
    if (in->torch == NULL)
        return;
    const struct gl_view_stacks *vs = &in->torch->stacks;
    for (uint32_t i = 0; i < vs->nframes; i++) {
        const struct gl_view_frame *f = vs->frames[i];
        write_pyframe(w->torch_frame_base + f->id, f->line, gl_view_frame_file(f), f->file_len,
                      gl_view_frame_func(f), f->func_len, w);
    }
}

/* The stacks of PyTorch's view, after the process's: id stack_top + its
 * own; its frames as write_pyframes numbered them. */
static void write_torch_stacks(struct gl_snap_writer *w, const struct gl_torch_view *t)
{
    const struct gl_view_stacks *vs = &t->stacks;
    for (uint32_t i = 0; i < vs->nstacks; i++) {
        const struct gl_view_stack *s = vs->stacks[i];
        gl_snap_record(w, GL_REC_STACK, 1, GL_STACK_FIXED_SIZE + (uint64_t)s->depth * 8);
        GL_SNAP_PART(w, stack, .id = w->stack_top + s->id, .depth = s->depth);
        for (uint32_t k = 0; k < s->depth; k++)
            gl_snap_u64(w, GL_PYFRAME_TAG | (uint64_t)(w->torch_frame_base + s->frames[k]));
    }
}

static void write_stacks(struct gl_snap_writer *w, const struct gl_snap_inputs *in)
{
    const struct gl_state_copy *c = in->copy;
    uint32_t left = c->nstacks;
    for (const struct gl_stack *s = c->stacks; s != NULL && left > 0; s = s->older, left--) {
        if (s->id > w->stack_top)
            w->stack_top = s->id;
        gl_snap_record(w, GL_REC_STACK, 1, GL_STACK_FIXED_SIZE + (uint64_t)s->depth * 8);
        GL_SNAP_PART(w, stack, .id = s->id, .depth = s->depth);
        for (uint32_t i = 0; i < s->depth; i++)
            gl_snap_u64(w, s->pcs[i]);
    }
    if (in->torch != NULL)
        write_torch_stacks(w, in->torch);
}

/* ---- the live table and the devices ---------------------------------------- */

#define ALLOCS_PER_RECORD 4096

/* A pool object's size is its idle reserve: what the driver holds for it
 * (asked with the other pools, POOLS, when the snapshot was taken) beyond
 * what its live allocations use.  Those allocations are records of their
 * own, so a pool never destroyed whose allocations leaked too does not
 * count their memory twice.  0 where the driver did not answer. */
static uint64_t pool_reserve(uint64_t pool, const struct gl_driver_view *view)
{
    size_t n = view ? view->npools : 0;
    for (size_t i = 0; i < n; i++)
        if (view->pools[i].pool == pool)
            return view->pools[i].reserved > view->pools[i].used ? view->pools[i].reserved - view->pools[i].used
                                                                  : 0;
    return 0;
}

static void write_allocs(struct gl_snap_writer *w, const struct gl_snap_inputs *in)
{
    const struct gl_state_copy *c = in->copy;
    for (size_t base = 0; base < c->nallocs; base += ALLOCS_PER_RECORD) {
        size_t n = c->nallocs - base;
        if (n > ALLOCS_PER_RECORD)
            n = ALLOCS_PER_RECORD;
        gl_snap_record(w, GL_REC_ALLOCS, (uint32_t)n, (uint64_t)n * GL_ALLOC_ENTRY_SIZE);
        for (size_t i = base; i < base + n; i++) {
            const struct gl_alloc_copy *a = &c->allocs[i];
            GL_SNAP_PART(w, allocs, .ptr = a->ptr,
                         .size = a->kind == GL_KIND_MEMPOOL ? pool_reserve(a->ptr, in->view) : a->size,
                         .seq = a->seq, .time_ns = a->time_ns, .stream = a->stream, .stack_id = a->stack_id,
                         .device = a->device, .kind = a->kind, .api = a->api);
        }
    }
}

/* The driver's view of one device's memory: the caller's (asked on a
 * thread with the device's context, see docs/snapshot-format.md), else
 * the one asked with the snapshot; NULL: not known. */
static const struct gl_mem_view *mem_view_of(const struct gl_snap_inputs *in, int32_t device)
{
    if (in->mem != NULL && in->mem->device == device)
        return in->mem;
    size_t n = in->view ? in->view->nmems : 0;
    for (size_t k = 0; k < n; k++)
        if (in->view->mems[k].device == device)
            return &in->view->mems[k];
    return NULL;
}

static void write_devices(struct gl_snap_writer *w, const struct gl_snap_inputs *in)
{
    const struct gl_state_copy *c = in->copy;
    gl_snap_record(w, GL_REC_DEVICES, (uint32_t)c->ndevices, (uint64_t)c->ndevices * GL_DEVICE_ENTRY_SIZE);
    for (size_t i = 0; i < c->ndevices; i++) {
        const struct gl_device_copy *d = &c->devices[i];
        const struct gl_mem_view *v = mem_view_of(in, d->device);
        struct gl_ctx_measure ctx = gl_ctx_measured(d->device); /* atomic loads: signal-safe */
        struct gl_before_attach before = gl_before_attach_of(d->device); /* atomic loads too */
        GL_SNAP_PART(w, devices, .device = d->device, .live_bytes = d->live_bytes, .live_count = d->live_count,
                     .peak_bytes = d->peak_bytes, .peak_seq = d->peak_seq, .peak_time_ns = d->peak_time_ns,
                     .alloc_count = d->alloc_count, .free_count = d->free_count,
                     .alloc_bytes_total = d->alloc_bytes_total, .failed_count = d->failed_count,
                     .unknown_free_count = d->unknown_free_count, .mem_free = v ? v->mem_free : 0,
                     .mem_total = v ? v->mem_total : 0, .ctx_used_at_create = ctx.used_at_create,
                     .ctx_creations = ctx.creations, .before_attach_used = before.used_at_attach,
                     .before_attach_freed = before.freed_bytes, .before_attach_frees = before.frees,
                     .before_attach_torch_bytes = before.torch_bytes,
                     .before_attach_torch_freed = before.torch_freed,
                     .before_attach_torch_segments = before.torch_segments,
                     .before_attach_torch_frees = before.torch_frees,
                     .before_attach_torch_status = before.torch_status);
    }
}

static void write_pools(struct gl_snap_writer *w, const struct gl_snap_inputs *in)
{
    size_t n = in->view ? in->view->npools : 0;
    if (n == 0)
        return;
    const struct gl_pool_info *p = in->view->pools;
    gl_snap_record(w, GL_REC_POOLS, (uint32_t)n, (uint64_t)n * GL_POOL_ENTRY_SIZE);
    for (size_t i = 0; i < n; i++) {
        GL_SNAP_PART(w, pools, .handle = p[i].pool, .device = p[i].device, .reserved = p[i].reserved,
                     .used = p[i].used, .reserved_high = p[i].reserved_high, .used_high = p[i].used_high);
    }
}

static void write_peaks(struct gl_snap_writer *w, const struct gl_snap_inputs *in)
{
    const struct gl_state_copy *c = in->copy;
    gl_snap_record(w, GL_REC_PEAK, (uint32_t)c->npeaks, (uint64_t)c->npeaks * GL_PEAK_ENTRY_SIZE);
    for (size_t i = 0; i < c->npeaks; i++) {
        const struct gl_peak_copy *p = &c->peaks[i];
        GL_SNAP_PART(w, peak, .device = p->device, .stack_id = p->stack_id, .bytes = p->bytes,
                     .count = p->count);
    }
}

/* ---- the history ------------------------------------------------------------ */

#define EVENTS_PER_RECORD 4096

static void write_events(struct gl_snap_writer *w, const struct gl_snap_inputs *in)
{
    const struct gl_state_copy *c = in->copy;
    for (size_t base = 0; base < c->nevents; base += EVENTS_PER_RECORD) {
        size_t n = c->nevents - base;
        if (n > EVENTS_PER_RECORD)
            n = EVENTS_PER_RECORD;
        gl_snap_record(w, GL_REC_EVENTS, (uint32_t)n, (uint64_t)n * GL_EVENT_ENTRY_SIZE);
        for (size_t i = base; i < base + n; i++) {
            const struct gl_event *e = &c->events[i];
            bool oom = e->type == GL_EV_OOM; /* ptr and mem_free share a field */
            bool freed = e->type == GL_EV_FREE;
            if (e->type == GL_EV_SNAPSHOT && e->size == w->index)
                w->index_at[1] = w->offset + GL_WIRE_OFF(events, size);
            GL_SNAP_PART(w, events, .seq = e->seq, .time_ns = e->time_ns, .ptr = oom ? 0 : e->ptr,
                         .size = e->size, .stream = e->stream, .stack_id = e->stack_id, .device = e->device,
                         .type = e->type, .kind = e->kind, .api = e->api,
                         .mem_free = oom ? e->mem_free : freed ? e->free_stack_id : 0,
                         .mem_total = oom ? e->mem_total : 0);
        }
    }
}

/* The text of every annotation still in the history. */
static void write_labels(struct gl_snap_writer *w, const struct gl_snap_inputs *in)
{
    const struct gl_state_copy *c = in->copy;
    for (size_t i = 0; i < c->nevents; i++) {
        if (c->events[i].type != GL_EV_ANNOTATION)
            continue;
        char label[512];
        size_t len = gl_label_get((uint32_t)c->events[i].ptr, label, sizeof label);
        gl_snap_record(w, GL_REC_LABEL, 1, GL_LABEL_FIXED_SIZE + 4 + len);
        GL_SNAP_PART(w, label, .id = (uint32_t)c->events[i].ptr);
        gl_snap_str(w, label, len);
    }
}

/* ---- the leaves' copies ------------------------------------------------------ */

static void write_vmm(struct gl_snap_writer *w, const struct gl_snap_inputs *in)
{
    (void)in;
    size_t n;
    struct gl_vmm_range *r = gl_vmm_copy(&n);
    if (r == NULL)
        return;
    gl_snap_record(w, GL_REC_VMM, (uint32_t)n, (uint64_t)n * GL_VMM_ENTRY_SIZE);
    for (size_t i = 0; i < n; i++) {
        GL_SNAP_PART(w, vmm, .va = r[i].va, .size = r[i].size, .handle = r[i].handle, .type = r[i].type,
                     .device = r[i].device);
    }
    free(r);
}

/* Taken before the state copy, so every stack it names is in the copy. */
static void write_bad_frees(struct gl_snap_writer *w, const struct gl_snap_inputs *in)
{
    const struct gl_bad_free *b = in->bad;
    size_t n = in->nbad;
    if (n == 0)
        return;
    gl_snap_record(w, GL_REC_BAD_FREES, (uint32_t)n, (uint64_t)n * GL_BAD_FREE_ENTRY_SIZE);
    for (size_t i = 0; i < n; i++) {
        GL_SNAP_PART(w, bad_frees, .ptr = b[i].ptr, .count = b[i].count, .time_ns = b[i].time_ns,
                     .stack_id = b[i].stack_id, .device = b[i].device, .api = b[i].api,
                     .flags = b[i].rejected ? GL_BAD_FREE_F_REJECTED : 0);
    }
}

/* Allocation calls per stack, as copied with the device counters. */
static void write_calls(struct gl_snap_writer *w, const struct gl_snap_inputs *in)
{
    const struct gl_state_copy *c = in->copy;
    if (c->ncalls == 0)
        return;
    gl_snap_record(w, GL_REC_CALLS, (uint32_t)c->ncalls, (uint64_t)c->ncalls * GL_CALLS_ENTRY_SIZE);
    for (size_t i = 0; i < c->ncalls; i++) {
        const struct gl_calls_copy *k = &c->calls[i];
        GL_SNAP_PART(w, calls, .stack_id = k->stack_id, .api = k->api, .kind = k->kind, .allocs = k->allocs,
                     .frees = k->frees, .bytes = k->bytes);
    }
}

/* Taken before the state copy, so every stack it names is in the copy. */
static void write_teardowns(struct gl_snap_writer *w, const struct gl_snap_inputs *in)
{
    const struct gl_teardown *t = in->torn;
    size_t n = in->ntorn;
    if (n == 0)
        return;
    gl_snap_record(w, GL_REC_TEARDOWN, (uint32_t)n, (uint64_t)n * GL_TEARDOWN_ENTRY_SIZE);
    for (size_t i = 0; i < n; i++) {
        GL_SNAP_PART(w, teardown, .bytes = t[i].bytes, .count = t[i].count, .time_ns = t[i].time_ns,
                     .stack_id = t[i].stack_id, .device = t[i].device, .kind = t[i].kind, .api = t[i].api,
                     .teardown = t[i].teardown);
    }
}

/* ---- PyTorch ------------------------------------------------------------------ */

/* PyTorch's view, when it was asked (status not 0): docs/pytorch.md. */
static const struct gl_torch_view *torch_asked(const struct gl_snap_inputs *in)
{
    return in->torch != NULL && in->torch->status != 0 ? in->torch : NULL;
}

/* PyTorch's own view of its cache.  Its blocks' stacks were written by
 * write_stacks, numbered after stack_top. */
static void write_torch(struct gl_snap_writer *w, const struct gl_snap_inputs *in)
{
    const struct gl_torch_view *t = torch_asked(in);
    if (t == NULL)
        return;
    size_t n = t->status == GL_TORCH_ANSWERED ? t->nblocks : 0;
    gl_snap_record(w, GL_REC_TORCH, 1, GL_TORCH_FIXED_SIZE);
    GL_SNAP_PART(w, torch, .status = t->status, .segments = t->segments, .reserved_bytes = t->reserved_bytes,
                 .allocated_bytes = t->allocated_bytes, .blocks = n, .age_us = t->age_us,
                 .max_allocated_bytes = t->max_allocated_bytes, .max_reserved_bytes = t->max_reserved_bytes);
}

static void write_torch_blocks(struct gl_snap_writer *w, const struct gl_snap_inputs *in)
{
    const struct gl_torch_view *t = torch_asked(in);
    size_t n = t != NULL && t->status == GL_TORCH_ANSWERED ? t->nblocks : 0;
    for (size_t base = 0; base < n; base += ALLOCS_PER_RECORD) {
        size_t k = n - base < ALLOCS_PER_RECORD ? n - base : ALLOCS_PER_RECORD;
        gl_snap_record(w, GL_REC_TORCH_BLOCKS, (uint32_t)k, (uint64_t)k * GL_TORCH_BLOCK_ENTRY_SIZE);
        for (size_t i = base; i < base + k; i++) {
            const struct gl_torch_block *b = &t->blocks[i];
            GL_SNAP_PART(w, torch_blocks, .segment = b->segment, .address = b->address, .size = b->size,
                         .requested_size = b->requested_size,
                         .stack_id = b->stack_id != 0 ? w->stack_top + b->stack_id : 0, .device = b->device,
                         .state = b->state, .flags = b->flags);
        }
    }
}

/* PyTorch's allocator settings, as it reported them with the view. */
static void write_torch_settings(struct gl_snap_writer *w, const struct gl_snap_inputs *in)
{
    const struct gl_torch_view *t = torch_asked(in);
    if (t == NULL || t->status != GL_TORCH_ANSWERED || t->nsettings == 0)
        return;
    gl_snap_record(w, GL_REC_TORCH_SETTINGS, 1, GL_TORCH_SETTINGS_FIXED_SIZE + (uint64_t)t->settings_len);
    GL_SNAP_PART(w, torch_settings, .count = t->nsettings);
    gl_snap_bytes(w, t->settings, t->settings_len);
}

/* The out-of-memory PyTorch's observer saw (only in that observer's
 * snapshot). */
static void write_torch_oom(struct gl_snap_writer *w, const struct gl_snap_inputs *in)
{
    const struct gl_torch_view *t = torch_asked(in);
    if (t == NULL || !t->oom.present)
        return;
    gl_snap_record(w, GL_REC_TORCH_OOM, 1, GL_TORCH_OOM_FIXED_SIZE);
    GL_SNAP_PART(w, torch_oom, .device = t->oom.device, .request = t->oom.request, .allowed = t->oom.allowed,
                 .free = t->oom.free);
}

/* PyTorch's optimizer steps kept in memory (control/torch_steps.h), oldest
 * first: every snapshot carries the whole series, one record a step. */
static void write_torch_steps(struct gl_snap_writer *w, const struct gl_snap_inputs *in)
{
    (void)in;
    size_t n;
    struct gl_torch_step **steps = gl_torch_steps_copy(&n);
    for (size_t i = 0; i < n; i++) {
        const struct gl_torch_step *t = steps[i];
        gl_snap_record(w, GL_REC_TORCH_STEP, 1,
                       GL_TORCH_STEP_FIXED_SIZE + (uint64_t)t->tail_len + GL_TORCH_STEP_TRAILER_SIZE);
        GL_SNAP_PART(w, torch_step, .step = t->step, .time_ns = t->time_ns, .allocated = t->allocated,
                     .reserved = t->reserved, .flags = t->flags, .lines = t->lines);
        gl_snap_bytes(w, t->tail, t->tail_len);
        gl_snap_u64(w, t->recorded_steps);
        gl_snap_u32(w, t->lines_every);
        gl_snap_u32(w, 0);
    }
    gl_torch_steps_free(steps, n);
}

/* ---- the table ------------------------------------------------------------------ */

/* The records written before it, and where it is. */
static void write_end(struct gl_snap_writer *w, const struct gl_snap_inputs *in)
{
    (void)in;
    uint64_t end_offset = w->offset;
    uint64_t records = w->records;
    gl_snap_record(w, GL_REC_END, 1, GL_END_SIZE);
    GL_SNAP_PART(w, end, .records = records, .offset = end_offset);
}

static const struct write_stage {
    uint32_t type; /* GL_REC_* */
    write_stage_fn *write;
} stages[] = {
#define STAGE_ROW(RECORD, stage) {GL_REC_##RECORD, write_##stage},
    GL_SNAPSHOT_STAGES(STAGE_ROW)
#undef STAGE_ROW
};

/* The writer's table is the reader's (snapshot_stages.h): one bit a record
 * type, END's the highest. */
#define REC_BIT(type) ((type) == GL_REC_END ? UINT64_C(1) << 63 : UINT64_C(1) << (type))
#define STAGE_BIT(RECORD, stage) | REC_BIT(GL_REC_##RECORD)
#define WRITTEN (0 GL_SNAPSHOT_STAGES(STAGE_BIT))
#define HAS_STAGE(NAME, occurs, shape, what)                                   \
    _Static_assert(GL_REC_##NAME < 63 || GL_REC_##NAME == GL_REC_END, #NAME "'s type fits the check"); \
    _Static_assert(WRITTEN & REC_BIT(GL_REC_##NAME), "the reader knows record " #NAME ", the writer has no stage for it");
GL_RECORD_LIST(HAS_STAGE)
#define LISTED_BIT(NAME, occurs, shape, what) | REC_BIT(GL_REC_##NAME)
_Static_assert(WRITTEN == (0 GL_RECORD_LIST(LISTED_BIT)), "the writer's stages and the format's record list differ");

void gl_snapshot_write_stages(struct gl_snap_writer *w, const struct gl_snap_inputs *in)
{
    GL_SNAP_PART(w, file_header, .magic = GL_SNAP_MAGIC, .version = GL_SNAP_VERSION, .flags = 0);
    for (size_t i = 0; i < sizeof stages / sizeof stages[0]; i++)
        stages[i].write(w, in);
}
