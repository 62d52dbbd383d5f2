#include "control/snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/config.h"
#include "base/internal.h"
#include "base/lock.h"
#include "base/log.h"
#include "base/modules.h"
#include "base/procenv.h"
#include "base/xfsz.h"
#include "capture/pyframes.h"
#include "control/outfile.h"
#include "control/torch_steps.h"
#include "control/torch_decode.h"
#include "cuda/calls.h"
#include "cuda/ctx_cost.h"
#include "cuda/before_attach.h"
#include "cuda/driver_view.h"
#include "cuda/pools.h"
#include "cuda/vmm.h"
#include "snapshot_format.h"
#include "snapshot_codec.h"
#include "state/bad_free.h"
#include "state/stack_table.h"
#include "state/teardown.h"
#include "state/track.h"

/* ---- process facts ---------------------------------------------------- */

#define CMDLINE_MAX (64 * 1024)
static char cmdline[CMDLINE_MAX]; /* NUL-separated argv, read at activation */
static size_t cmdline_len;
static char exe_path[GL_PATH_MAX];

void gl_procinfo_init(void)
{
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n;
        while (cmdline_len < sizeof cmdline &&
               (n = read(fd, cmdline + cmdline_len, sizeof cmdline - cmdline_len)) > 0)
            cmdline_len += (size_t)n;
        close(fd);
    }
    ssize_t n = readlink("/proc/self/exe", exe_path, sizeof exe_path - 1);
    exe_path[n > 0 ? n : 0] = '\0';
    gl_env_capture_initial();
}

/* ---- buffered little-endian writer ------------------------------------ */

struct writer {
    int fd;
    int err; /* first errno seen; once set, nothing more is written */
    uint64_t offset;
    uint64_t records;
    /* Where the snapshot's number (the %n of its name) is in the file: the
     * process record and this snapshot's mark in the history; rewritten if
     * the file has to take another number (renumber). */
    uint64_t index;
    uint64_t index_at[2];
    /* The highest process-wide Python frame id and stack id written: a
     * PyTorch view's own frames and stacks are numbered after them. */
    uint32_t pyframe_top, stack_top;
    size_t len;
    uint8_t buf[1 << 16];
};

static void w_flush(struct writer *w)
{
    if (w->len > 0 && !w->err)
        w->err = gl_outfile_write(w->fd, w->buf, w->len);
    w->len = 0;
}

static void w_bytes(struct writer *w, const void *p, size_t n)
{
    const uint8_t *src = p;
    w->offset += n;
    if (n <= sizeof w->buf - w->len) { /* the common case: one field */
        memcpy(w->buf + w->len, src, n);
        w->len += n;
        return;
    }
    while (n > 0 && !w->err) {
        if (w->len == sizeof w->buf)
            w_flush(w);
        size_t chunk = sizeof w->buf - w->len;
        if (chunk > n)
            chunk = n;
        memcpy(w->buf + w->len, src, chunk);
        w->len += chunk;
        src += chunk;
        n -= chunk;
    }
}

/* x86-64 and aarch64 Linux are little-endian; the format is too. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "snapshot writer assumes little-endian");
static void w_u32(struct writer *w, uint32_t v) { w_bytes(w, &v, 4); }
static void w_u64(struct writer *w, uint64_t v) { w_bytes(w, &v, 8); }

/* One fixed-size part (a record's fixed fields, an array entry), encoded
 * from its field list in snapshot_fields.h: no offset is written here. */
#define W_PART(w, part, ...)                                                   \
    do {                                                                       \
        uint8_t part_[sizeof(struct gl_wire_##part##_layout)];                 \
        gl_wire_##part##_encode(part_, &(const struct gl_wire_##part){__VA_ARGS__}); \
        w_bytes((w), part_, sizeof part_);                                     \
    } while (0)

static void w_str(struct writer *w, const char *s, size_t n)
{
    if (n > GL_SNAP_MAX_STRING)
        n = GL_SNAP_MAX_STRING;
    w_u32(w, (uint32_t)n);
    w_bytes(w, s, n);
}

static void w_record(struct writer *w, uint32_t type, uint32_t count, uint64_t length)
{
    W_PART(w, record_header, .type = type, .count = count, .length = length);
    w->records++;
}

/* ---- records ------------------------------------------------------------ */

static size_t argv_count(void)
{
    size_t argc = 0;
    for (size_t i = 0; i < cmdline_len; i++)
        if (cmdline[i] == '\0')
            argc++;
    if (cmdline_len > 0 && cmdline[cmdline_len - 1] != '\0')
        argc++; /* truncated last argument */
    return argc < GL_SNAP_MAX_ARGS ? argc : GL_SNAP_MAX_ARGS;
}

static void write_process(struct writer *w, uint32_t reason, uint32_t flags, uint64_t index,
                          uint64_t snap_unix, uint64_t snap_mono)
{
    char host[256];
    if (gethostname(host, sizeof host) != 0)
        host[0] = '\0';
    host[sizeof host - 1] = '\0';
    size_t hostlen = strlen(host), exelen = strlen(exe_path);
    size_t argc = argv_count();

    uint64_t len = GL_PROCESS_FIXED_SIZE + 4 + hostlen + 4 + exelen + 4;
    const char *arg = cmdline;
    for (size_t i = 0; i < argc; i++) {
        size_t n = strnlen(arg, (size_t)(cmdline + cmdline_len - arg));
        len += 4 + n;
        arg += n + 1;
    }
    w_record(w, GL_REC_PROCESS, 1, len);
    w->index = index;
    w->index_at[0] = w->offset + GL_WIRE_OFF(process, index);
    W_PART(w, process, .pid = (uint32_t)getpid(), .ppid = (uint32_t)getppid(), .rank = gl_rank(),
           .reason = reason, .index = index, .start_unix_ns = gl_start_unix_ns, .snapshot_unix_ns = snap_unix,
           .snapshot_mono_ns = snap_mono, .flags = flags | (gl_rank_set() ? 0 : GL_SNAP_F_NO_RANK), .depth_limit = (uint32_t)gl_config.depth);
    w_str(w, host, hostlen);
    w_str(w, exe_path, exelen);
    w_u32(w, (uint32_t)argc);
    arg = cmdline;
    for (size_t i = 0; i < argc; i++) {
        size_t n = strnlen(arg, (size_t)(cmdline + cmdline_len - arg));
        w_str(w, arg, n);
        arg += n + 1;
    }
}

static void write_env(struct writer *w)
{
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
    w_record(w, GL_REC_ENV, 1, len);
    W_PART(w, env, .count = (uint32_t)count);
    for (size_t i = 0; i < env->count; i++) {
        if (!env->present[i])
            continue;
        size_t nl = strlen(gl_env_names[i]), vl = strlen(env->values[i]);
        w_u32(w, (uint32_t)(nl + 1 + vl));
        w_bytes(w, gl_env_names[i], nl);
        w_bytes(w, "=", 1);
        w_bytes(w, env->values[i], vl);
    }
}

static void write_modules(struct writer *w, const struct gl_module_list *mods)
{
    for (size_t i = 0; i < mods->count; i++) {
        const struct gl_module *m = &mods->items[i];
        size_t plen = strlen(m->path);
        if (plen > GL_SNAP_MAX_STRING)
            plen = GL_SNAP_MAX_STRING;
        w_record(w, GL_REC_MODULE, 1, GL_MODULE_FIXED_SIZE + m->build_id_len + 4 + plen);
        W_PART(w, module, .load_bias = m->bias, .start = m->start, .end = m->end,
               .build_id_len = m->build_id_len);
        w_bytes(w, m->build_id, m->build_id_len);
        w_str(w, m->path, plen);
    }
}

static void write_stacks(struct writer *w, const struct gl_state_copy *c)
{
    uint32_t left = c->nstacks;
    for (const struct gl_stack *s = c->stacks; s != NULL && left > 0; s = s->older, left--) {
        if (s->id > w->stack_top)
            w->stack_top = s->id;
        w_record(w, GL_REC_STACK, 1, GL_STACK_FIXED_SIZE + (uint64_t)s->depth * 8);
        W_PART(w, stack, .id = s->id, .depth = s->depth);
        for (uint32_t i = 0; i < s->depth; i++)
            w_u64(w, s->pcs[i]);
    }
}

/* Allocation calls per stack, as copied with the device counters. */
static void write_calls(struct writer *w, const struct gl_state_copy *c)
{
    if (c->ncalls == 0)
        return;
    w_record(w, GL_REC_CALLS, (uint32_t)c->ncalls, (uint64_t)c->ncalls * GL_CALLS_ENTRY_SIZE);
    for (size_t i = 0; i < c->ncalls; i++) {
        const struct gl_calls_copy *k = &c->calls[i];
        W_PART(w, calls, .stack_id = k->stack_id, .api = k->api, .kind = k->kind, .allocs = k->allocs,
               .frees = k->frees, .bytes = k->bytes);
    }
}

#define ALLOCS_PER_RECORD 4096

/* A pool object's size is its idle reserve: what the driver holds for it
 * (asked with the other pools, POOLS, when the snapshot was taken) beyond
 * what its live allocations use.  Those allocations are records of their
 * own, so a pool never destroyed whose allocations leaked too does not
 * count their memory twice.  0 where the driver did not answer. */
static uint64_t pool_reserve(uint64_t pool, const struct gl_pool_info *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i].pool == pool)
            return p[i].reserved > p[i].used ? p[i].reserved - p[i].used : 0;
    return 0;
}

static void write_allocs(struct writer *w, const struct gl_state_copy *c, const struct gl_pool_info *pools,
                         size_t npools)
{
    for (size_t base = 0; base < c->nallocs; base += ALLOCS_PER_RECORD) {
        size_t n = c->nallocs - base;
        if (n > ALLOCS_PER_RECORD)
            n = ALLOCS_PER_RECORD;
        w_record(w, GL_REC_ALLOCS, (uint32_t)n, (uint64_t)n * GL_ALLOC_ENTRY_SIZE);
        for (size_t i = base; i < base + n; i++) {
            const struct gl_alloc_copy *a = &c->allocs[i];
            W_PART(w, allocs, .ptr = a->ptr,
                   .size = a->kind == GL_KIND_MEMPOOL ? pool_reserve(a->ptr, pools, npools) : a->size,
                   .seq = a->seq, .time_ns = a->time_ns, .stream = a->stream, .stack_id = a->stack_id,
                   .device = a->device, .kind = a->kind, .api = a->api);
        }
    }
}

static void write_devices(struct writer *w, const struct gl_state_copy *c, const struct gl_mem_view *mem,
                          const struct gl_mem_view *views, size_t nviews)
{
    w_record(w, GL_REC_DEVICES, (uint32_t)c->ndevices, (uint64_t)c->ndevices * GL_DEVICE_ENTRY_SIZE);
    for (size_t i = 0; i < c->ndevices; i++) {
        const struct gl_device_copy *d = &c->devices[i];
        /* The driver's view is only known when the caller queried it on a
         * thread with the device's context (see docs/snapshot-format.md). */
        const struct gl_mem_view *v = mem != NULL && mem->device == d->device ? mem : NULL;
        for (size_t k = 0; v == NULL && k < nviews; k++)
            if (views[k].device == d->device)
                v = &views[k];
        struct gl_ctx_measure ctx = gl_ctx_measured(d->device); /* atomic loads: signal-safe */
        struct gl_before_attach before = gl_before_attach_of(d->device); /* atomic loads too */
        W_PART(w, devices, .device = d->device, .live_bytes = d->live_bytes, .live_count = d->live_count,
               .peak_bytes = d->peak_bytes, .peak_seq = d->peak_seq, .peak_time_ns = d->peak_time_ns,
               .alloc_count = d->alloc_count, .free_count = d->free_count,
               .alloc_bytes_total = d->alloc_bytes_total, .failed_count = d->failed_count,
               .unknown_free_count = d->unknown_free_count, .mem_free = v ? v->mem_free : 0,
               .mem_total = v ? v->mem_total : 0, .ctx_used_at_create = ctx.used_at_create,
               .ctx_creations = ctx.creations, .before_attach_used = before.used_at_attach,
               .before_attach_freed = before.freed_bytes, .before_attach_frees = before.frees,
               .before_attach_torch_bytes = before.torch_bytes, .before_attach_torch_freed = before.torch_freed,
               .before_attach_torch_segments = before.torch_segments,
               .before_attach_torch_frees = before.torch_frees, .before_attach_torch_status = before.torch_status);
    }
}

static void write_peaks(struct writer *w, const struct gl_state_copy *c)
{
    w_record(w, GL_REC_PEAK, (uint32_t)c->npeaks, (uint64_t)c->npeaks * GL_PEAK_ENTRY_SIZE);
    for (size_t i = 0; i < c->npeaks; i++) {
        const struct gl_peak_copy *p = &c->peaks[i];
        W_PART(w, peak, .device = p->device, .stack_id = p->stack_id, .bytes = p->bytes, .count = p->count);
    }
}

#define EVENTS_PER_RECORD 4096

static void write_events(struct writer *w, const struct gl_state_copy *c)
{
    for (size_t base = 0; base < c->nevents; base += EVENTS_PER_RECORD) {
        size_t n = c->nevents - base;
        if (n > EVENTS_PER_RECORD)
            n = EVENTS_PER_RECORD;
        w_record(w, GL_REC_EVENTS, (uint32_t)n, (uint64_t)n * GL_EVENT_ENTRY_SIZE);
        for (size_t i = base; i < base + n; i++) {
            const struct gl_event *e = &c->events[i];
            bool oom = e->type == GL_EV_OOM; /* ptr and mem_free share a field */
            bool freed = e->type == GL_EV_FREE;
            if (e->type == GL_EV_SNAPSHOT && e->size == w->index)
                w->index_at[1] = w->offset + GL_WIRE_OFF(events, size);
            W_PART(w, events, .seq = e->seq, .time_ns = e->time_ns, .ptr = oom ? 0 : e->ptr, .size = e->size,
                   .stream = e->stream, .stack_id = e->stack_id, .device = e->device, .type = e->type,
                   .kind = e->kind, .api = e->api,
                   .mem_free = oom ? e->mem_free : freed ? e->free_stack_id : 0,
                   .mem_total = oom ? e->mem_total : 0);
        }
    }
    /* The text of every annotation still in the history. */
    for (size_t i = 0; i < c->nevents; i++) {
        if (c->events[i].type != GL_EV_ANNOTATION)
            continue;
        char label[512];
        size_t len = gl_label_get((uint32_t)c->events[i].ptr, label, sizeof label);
        w_record(w, GL_REC_LABEL, 1, GL_LABEL_FIXED_SIZE + 4 + len);
        W_PART(w, label, .id = (uint32_t)c->events[i].ptr);
        w_str(w, label, len);
    }
}

static void write_pyframe(uint32_t id, uint32_t line, const char *file, size_t file_len,
                          const char *func, size_t func_len, void *arg)
{
    struct writer *w = arg;
    if (id > w->pyframe_top)
        w->pyframe_top = id;
    w_record(w, GL_REC_PYFRAME, 1, GL_PYFRAME_FIXED_SIZE + 4 + file_len + 4 + func_len);
    W_PART(w, pyframe, .id = id, .line = line);
    w_str(w, file, file_len);
    w_str(w, func, func_len);
}

static void write_pools(struct writer *w, const struct gl_pool_info *p, size_t n)
{
    if (n == 0)
        return;
    w_record(w, GL_REC_POOLS, (uint32_t)n, (uint64_t)n * GL_POOL_ENTRY_SIZE);
    for (size_t i = 0; i < n; i++) {
        W_PART(w, pools, .handle = p[i].pool, .device = p[i].device, .reserved = p[i].reserved,
               .used = p[i].used, .reserved_high = p[i].reserved_high, .used_high = p[i].used_high);
    }
}

static void write_vmm(struct writer *w)
{
    size_t n;
    struct gl_vmm_range *r = gl_vmm_copy(&n);
    if (r == NULL)
        return;
    w_record(w, GL_REC_VMM, (uint32_t)n, (uint64_t)n * GL_VMM_ENTRY_SIZE);
    for (size_t i = 0; i < n; i++) {
        W_PART(w, vmm, .va = r[i].va, .size = r[i].size, .handle = r[i].handle, .type = r[i].type,
               .device = r[i].device);
    }
    free(r);
}

/* Taken before the state copy, so every stack it names is in the copy. */
static void write_teardowns(struct writer *w, const struct gl_teardown *t, size_t n)
{
    if (n == 0)
        return;
    w_record(w, GL_REC_TEARDOWN, (uint32_t)n, (uint64_t)n * GL_TEARDOWN_ENTRY_SIZE);
    for (size_t i = 0; i < n; i++) {
        W_PART(w, teardown, .bytes = t[i].bytes, .count = t[i].count, .time_ns = t[i].time_ns,
               .stack_id = t[i].stack_id, .device = t[i].device, .kind = t[i].kind, .api = t[i].api,
               .teardown = t[i].teardown);
    }
}

/* Taken before the state copy, so every stack it names is in the copy. */
static void write_bad_frees(struct writer *w, const struct gl_bad_free *b, size_t n)
{
    if (n == 0)
        return;
    w_record(w, GL_REC_BAD_FREES, (uint32_t)n, (uint64_t)n * GL_BAD_FREE_ENTRY_SIZE);
    for (size_t i = 0; i < n; i++) {
        W_PART(w, bad_frees, .ptr = b[i].ptr, .count = b[i].count, .time_ns = b[i].time_ns,
               .stack_id = b[i].stack_id, .device = b[i].device, .api = b[i].api,
               .flags = b[i].rejected ? GL_BAD_FREE_F_REJECTED : 0);
    }
}

/* The Python frames of PyTorch's view (its own table, view_stacks.h), after
 * the process's: id frame_base (the process's highest) + its own. */
static void write_torch_frames(struct writer *w, const struct gl_torch_view *t, uint32_t frame_base)
{
    const struct gl_view_stacks *vs = &t->stacks;
    for (uint32_t i = 0; i < vs->nframes; i++) {
        const struct gl_view_frame *f = vs->frames[i];
        write_pyframe(frame_base + f->id, f->line, gl_view_frame_file(f), f->file_len,
                      gl_view_frame_func(f), f->func_len, w);
    }
}

/* The stacks of PyTorch's view, after the process's: id stack_top + its
 * own; its frames as write_torch_frames numbered them. */
static void write_torch_stacks(struct writer *w, const struct gl_torch_view *t, uint32_t frame_base)
{
    const struct gl_view_stacks *vs = &t->stacks;
    for (uint32_t i = 0; i < vs->nstacks; i++) {
        const struct gl_view_stack *s = vs->stacks[i];
        w_record(w, GL_REC_STACK, 1, GL_STACK_FIXED_SIZE + (uint64_t)s->depth * 8);
        W_PART(w, stack, .id = w->stack_top + s->id, .depth = s->depth);
        for (uint32_t k = 0; k < s->depth; k++)
            w_u64(w, GL_PYFRAME_TAG | (uint64_t)(frame_base + s->frames[k]));
    }
}

/* PyTorch's allocator settings, as it reported them with the view, and
 * the out-of-memory its observer saw (only in that observer's snapshot). */
static void write_torch_extra(struct writer *w, const struct gl_torch_view *t)
{
    if (t == NULL)
        return;
    if (t->status == GL_TORCH_ANSWERED && t->nsettings != 0) {
        w_record(w, GL_REC_TORCH_SETTINGS, 1, GL_TORCH_SETTINGS_FIXED_SIZE + (uint64_t)t->settings_len);
        W_PART(w, torch_settings, .count = t->nsettings);
        w_bytes(w, t->settings, t->settings_len);
    }
    if (t->oom.present) {
        w_record(w, GL_REC_TORCH_OOM, 1, GL_TORCH_OOM_FIXED_SIZE);
        W_PART(w, torch_oom, .device = t->oom.device, .request = t->oom.request, .allowed = t->oom.allowed,
               .free = t->oom.free);
    }
}

/* PyTorch's own view of its cache: docs/pytorch.md.  Its blocks' stacks
 * were written by write_torch_stacks, numbered after stack_top. */
static void write_torch(struct writer *w, const struct gl_torch_view *t)
{
    if (t == NULL || t->status == 0)
        return;
    size_t n = t->status == GL_TORCH_ANSWERED ? t->nblocks : 0;
    w_record(w, GL_REC_TORCH, 1, GL_TORCH_FIXED_SIZE);
    W_PART(w, torch, .status = t->status, .segments = t->segments, .reserved_bytes = t->reserved_bytes,
           .allocated_bytes = t->allocated_bytes, .blocks = n, .age_us = t->age_us,
           .max_allocated_bytes = t->max_allocated_bytes, .max_reserved_bytes = t->max_reserved_bytes);
    for (size_t base = 0; base < n; base += ALLOCS_PER_RECORD) {
        size_t k = n - base < ALLOCS_PER_RECORD ? n - base : ALLOCS_PER_RECORD;
        w_record(w, GL_REC_TORCH_BLOCKS, (uint32_t)k, (uint64_t)k * GL_TORCH_BLOCK_ENTRY_SIZE);
        for (size_t i = base; i < base + k; i++) {
            const struct gl_torch_block *b = &t->blocks[i];
            W_PART(w, torch_blocks, .segment = b->segment, .address = b->address, .size = b->size,
                   .requested_size = b->requested_size,
                   .stack_id = b->stack_id != 0 ? w->stack_top + b->stack_id : 0, .device = b->device,
                   .state = b->state, .flags = b->flags);
        }
    }
    write_torch_extra(w, t);
}

/* PyTorch's optimizer steps kept in memory (control/torch_steps.h), oldest
 * first: every snapshot carries the whole series, one record a step. */
static void write_torch_steps(struct writer *w)
{
    size_t n;
    struct gl_torch_step **steps = gl_torch_steps_copy(&n);
    for (size_t i = 0; i < n; i++) {
        const struct gl_torch_step *t = steps[i];
        w_record(w, GL_REC_TORCH_STEP, 1,
                 GL_TORCH_STEP_FIXED_SIZE + (uint64_t)t->tail_len + GL_TORCH_STEP_TRAILER_SIZE);
        W_PART(w, torch_step, .step = t->step, .time_ns = t->time_ns, .allocated = t->allocated,
               .reserved = t->reserved, .flags = t->flags, .lines = t->lines);
        w_bytes(w, t->tail, t->tail_len);
        w_u64(w, t->recorded_steps);
        w_u32(w, t->lines_every);
        w_u32(w, 0);
    }
    gl_torch_steps_free(steps, n);
}

/* Light mode: the stacks are a sample (capture/sample.h), and which stack
 * the allocations not sampled carry. */
static void write_sampling(struct writer *w)
{
    if (gl_config.mode != GL_MODE_LIGHT)
        return;
    const struct gl_stack *u = gl_stack_unsampled();
    w_record(w, GL_REC_SAMPLING, 1, GL_SAMPLING_FIXED_SIZE);
    W_PART(w, sampling, .mode = GL_SAMPLING_BYTES, .unsampled_stack_id = u != NULL ? u->id : 0,
           .sample_bytes = gl_config.sample_bytes);
}

/* ---- orchestration ------------------------------------------------------ */

static struct gl_lock snap_lock = GL_LOCK_INIT(SNAP);
static uint64_t next_index;
/* Once the final snapshot is written, the process is exiting: a periodic or
 * signal snapshot taken after it (the writer thread still runs during exit)
 * would be numbered after the "final" one and hide it. */
static bool final_taken;

/* The file's name was taken after gl_outfile_next_name chose it (another process
 * sharing the pattern): the next free number, written into the file too. */
static bool renumber(void *ctx, int fd, char *path, size_t size)
{
    const struct writer *w = ctx;
    uint64_t index;
    if (!gl_outfile_next_name(&next_index, path, size, &index))
        return false;
    for (size_t i = 0; i < sizeof w->index_at / sizeof w->index_at[0]; i++)
        if (w->index_at[i] != 0 && pwrite(fd, &index, sizeof index, (off_t)w->index_at[i]) != sizeof index)
            return false;
    return true;
}

int gl_snapshot_write(uint32_t reason, uint32_t flags, const char *path, const struct gl_torch_view *torch)
{
    return gl_snapshot_write_with(reason, flags, path, NULL, torch);
}

static int snapshot_write_locked(uint32_t reason, uint32_t flags, const char *path,
                                 const struct gl_mem_view *mem, struct gl_snapshot_file *written,
                                 const struct gl_torch_view *torch, const struct gl_driver_view *view);

/* The driver's view, asked while the program runs (NULL: not asked, or no
 * memory for it); at exit and on a fatal signal the driver is not asked
 * (driver_view.h; a fatal signal's thread may hold the driver's lock).
 * Asked with no lock of ours held: a thread inside a CUDA call may hold
 * the driver's lock and then wait for a snapshot of ours (a fatal
 * signal's), which must not wait for this one (issue 48). */
static struct gl_driver_view *ask_driver(uint32_t reason)
{
    if (reason != GL_REASON_SIGNAL && reason != GL_REASON_REQUEST && reason != GL_REASON_OOM &&
        reason != GL_REASON_PERIODIC && reason != GL_REASON_DETACH)
        return NULL;
    struct gl_driver_view *view = malloc(sizeof *view);
    if (view != NULL)
        gl_driver_view_query(view);
    return view;
}

/* The identity of the file about to be renamed into place (rename keeps the
 * inode). */
static bool note_written(const struct gl_outfile *of, const char *name, struct gl_snapshot_file *out)
{
    struct stat st;
    if (fstat(of->fd, &st) != 0)
        return false;
    snprintf(out->path, sizeof out->path, "%s", name);
    out->dev = (uint64_t)st.st_dev;
    out->ino = (uint64_t)st.st_ino;
    out->ours = !of->in_place;
    return true;
}

static int snapshot_write(uint32_t reason, uint32_t flags, const char *path, const struct gl_mem_view *mem,
                          struct gl_snapshot_file *written, const struct gl_torch_view *torch)
{
    struct gl_xfsz xfsz; /* base/xfsz.h: a file too large never kills the host */
    /* open, write and close are cancellation points: a thread cancelled in
     * the middle of a snapshot (gpuleak_snapshot from a thread the program
     * cancels) would die holding snap_lock, and every later snapshot, the
     * final one at exit included, would wait for it forever.  A pending
     * cancellation acts at the caller's next cancellation point instead. */
    int cancel_state;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
    struct gl_driver_view *asked = ask_driver(reason);
    const struct gl_driver_view *view = reason == GL_REASON_EXIT ? gl_driver_view_at_exit() : asked;
    gl_xfsz_block(&xfsz);
    gl_lock(&snap_lock);
    int rc = snapshot_write_locked(reason, flags, path, mem, written, torch, view);
    gl_unlock(&snap_lock);
    free(asked);
    gl_xfsz_restore(&xfsz);
    pthread_setcancelstate(cancel_state, NULL);
    return rc;
}

int gl_snapshot_write_with(uint32_t reason, uint32_t flags, const char *path,
                           const struct gl_mem_view *mem, const struct gl_torch_view *torch)
{
    return snapshot_write(reason, flags, path, mem, NULL, torch);
}

int gl_snapshot_write_file(uint32_t reason, uint32_t flags, const char *path,
                           struct gl_snapshot_file *written, const struct gl_torch_view *torch)
{
    return snapshot_write(reason, flags, path, NULL, written, torch);
}

static int snapshot_write_locked(uint32_t reason, uint32_t flags, const char *path,
                                 const struct gl_mem_view *mem, struct gl_snapshot_file *written,
                                 const struct gl_torch_view *torch, const struct gl_driver_view *view)
{
    static atomic_bool warned_name, warned_mem, warned_io;
    int rc = -1;

    if (final_taken)
        goto out;
    if (flags & GL_SNAP_F_FINAL)
        final_taken = true;

    char name[GL_PATH_MAX];
    uint64_t index;
    if (path != NULL) {
        index = next_index++;
        if (strlen(path) >= sizeof name) {
            gl_warn_once(&warned_name, "snapshot path too long");
            goto out;
        }
        strcpy(name, path);
    } else if (!gl_outfile_next_name(&next_index, name, sizeof name, &index)) {
        gl_warn_once(&warned_name, "cannot form a snapshot file name from GPULEAK_OUTPUT=%s",
                     gl_config.output);
        goto out;
    }

    gl_track_mark(GL_EV_SNAPSHOT, 0, index);
    size_t nbad;
    struct gl_bad_free *bad = gl_bad_free_copy(&nbad); /* NULL: none, or no memory for them */
    size_t ntorn;
    struct gl_teardown *torn = gl_teardown_copy(&ntorn);
    struct gl_state_copy copy;
    if (!gl_track_copy(&copy)) {
        free(bad);
        free(torn);
        gl_warn_once(&warned_mem, "out of memory while taking a snapshot; none written");
        goto out;
    }
    /* Taken now, after the copy: every event, peak and allocation it holds
     * (this snapshot's own mark included) happened before this time.
     * Stamped before the driver was asked and the state copied, it was
     * earlier than events it contained. */
    uint64_t snap_unix = gl_unix_ns();
    uint64_t snap_mono = gl_mono_ns() - gl_start_mono_ns;
    struct gl_module_list mods;
    if (gl_modules_collect(&mods) != 0) {
        gl_state_copy_free(&copy);
        free(bad);
        free(torn);
        gl_warn_once(&warned_mem, "out of memory while taking a snapshot; none written");
        goto out;
    }

    struct writer *w = malloc(sizeof *w);
    struct gl_outfile of;
    if (w == NULL) {
        gl_warn_once(&warned_mem, "out of memory while taking a snapshot; none written");
    } else if (!gl_outfile_open(&of, name)) {
        if (errno != ENOENT || !gl_outfile_missing_dir_said()) /* said at the start: one line */
            gl_warn_once(&warned_io, "cannot write snapshot %s: %s", name, strerror(errno));
    } else {
        memset(w, 0, offsetof(struct writer, buf));
        w->fd = of.fd;
        W_PART(w, file_header, .magic = GL_SNAP_MAGIC, .version = GL_SNAP_VERSION, .flags = 0);
        write_process(w, reason, flags, index, snap_unix, snap_mono);
        write_env(w);
        write_sampling(w);
        write_modules(w, &mods);
        gl_py_for_each(write_pyframe, w);
        uint32_t torch_frame_base = w->pyframe_top;
        if (torch != NULL)
            write_torch_frames(w, torch, torch_frame_base);
        write_stacks(w, &copy);
        if (torch != NULL)
            write_torch_stacks(w, torch, torch_frame_base);
        write_allocs(w, &copy, view ? view->pools : NULL, view ? view->npools : 0);
        write_devices(w, &copy, mem, view ? view->mems : NULL, view ? view->nmems : 0);
        write_pools(w, view ? view->pools : NULL, view ? view->npools : 0);
        write_peaks(w, &copy);
        write_events(w, &copy);
        write_vmm(w);
        write_bad_frees(w, bad, nbad);
        write_calls(w, &copy);
        write_teardowns(w, torn, ntorn);
        write_torch(w, torch);
        write_torch_steps(w);
        uint64_t end_offset = w->offset;
        uint64_t records = w->records;
        w_record(w, GL_REC_END, 1, GL_END_SIZE);
        W_PART(w, end, .records = records, .offset = end_offset);
        w_flush(w);
        if (w->err) {
            errno = w->err;
            gl_warn_once(&warned_io, "cannot write snapshot %s: %s", name, strerror(errno));
            gl_outfile_abort(&of);
        } else if (written != NULL && !note_written(&of, name, written)) {
            gl_warn_once(&warned_io, "cannot write snapshot %s: %s", name, strerror(errno));
            gl_outfile_abort(&of);
        } else if (!gl_outfile_commit(&of, path == NULL && gl_outfile_numbered() ? renumber : NULL, w)) {
            gl_warn_once(&warned_io, "cannot write snapshot %s: %s", of.final_path, strerror(errno));
        } else {
            if (written != NULL)
                snprintf(written->path, sizeof written->path, "%s", of.final_path);
            rc = 0;
        }
    }
    free(w);
    free(bad);
    free(torn);
    gl_modules_free(&mods);
    gl_state_copy_free(&copy);
out:
    return rc;
}

void gl_snapshot_postfork_child(void)
{
    gl_lock_init(&snap_lock, GL_LOCK_SNAP, 0);
    next_index = 0;
    final_taken = false;
}
