/* In-memory model of one gpuleak snapshot file and the strict reader that
 * builds it.  snap_parse() works on a byte buffer and never touches files, so
 * it can be fuzzed directly; snap_load_file() is the thin I/O wrapper. */
#ifndef GPULEAK_SNAP_READ_H
#define GPULEAK_SNAP_READ_H

#include <math.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "snapshot_format.h"
#include "snapshot_codec.h"

/* A string from the file: a NUL-terminated private copy plus its real length
 * (the file may contain embedded NULs, which only `len` reflects). */
struct snap_str {
    char *s;
    uint32_t len;
};

/* The members named after a part's fields are declared from its list in
 * snapshot_fields.h (GL_WIRE_MEMBERS), so a field added there is decoded
 * into them with no change here; what follows them is derived or variable. */
struct snap_process {
    GL_WIRE_MEMBERS(PROCESS)
    struct snap_str host, exe;
    uint32_t argc;
    struct snap_str *argv;
};

struct snap_module {
    GL_WIRE_MEMBERS(MODULE)
    uint8_t build_id[GL_SNAP_MAX_BUILD_ID];
    struct snap_str path;
};

struct snap_stack {
    GL_WIRE_MEMBERS(STACK)
    size_t pc_off; /* index of pc[0] in snapshot.pcs (stable across realloc) */
};

struct snap_alloc {
    GL_WIRE_MEMBERS(ALLOCS)
};

struct snap_device {
    GL_WIRE_MEMBERS(DEVICES)
};

struct snap_peak {
    GL_WIRE_MEMBERS(PEAK)
};

/* mem_free and mem_total: the driver's view at an OOM event, else 0 (the
 * reader moves a FREE event's mem_free, its stack, to free_stack_id). */
struct snap_event {
    GL_WIRE_MEMBERS(EVENTS)
    uint32_t free_stack_id; /* FREE: the free's own stack, 0 if not recorded */
};

struct snap_pool {
    GL_WIRE_MEMBERS(POOLS)
};

/* BAD_FREES entry: frees of an address or handle with no live allocation;
 * flags are GL_BAD_FREE_F_*. */
struct snap_bad_free {
    GL_WIRE_MEMBERS(BAD_FREES)
};

/* TEARDOWN entry: allocations never freed that a context teardown released. */
struct snap_teardown {
    GL_WIRE_MEMBERS(TEARDOWN)
};

/* CALLS entry: allocation calls and frees made with one stack. */
struct snap_calls {
    GL_WIRE_MEMBERS(CALLS)
};

/* type: GL_VMM_RESERVATION or GL_VMM_MAPPING */
struct snap_vmm {
    GL_WIRE_MEMBERS(VMM)
};

/* TORCH: PyTorch's caching allocator's summary (status enum gl_torch_status;
 * 0 when the snapshot has no TORCH record); TORCH_BLOCKS entries: its blocks. */
struct snap_torch {
    GL_WIRE_MEMBERS(TORCH)
};
/* TORCH_OOM: the out-of-memory PyTorch's observer saw (present false: no
 * such record, not that observer's snapshot). */
struct snap_torch_oom {
    GL_WIRE_MEMBERS(TORCH_OOM)
    bool present;
};
/* mode 0: no SAMPLING record, every stack was captured.  Otherwise the
 * reader has already given the allocations that were not sampled stack id
 * 0 ("no stack") everywhere: unsampled_stack_id is what the file named. */
struct snap_sampling {
    GL_WIRE_MEMBERS(SAMPLING)
};

/* What one sampled allocation of size bytes stands for when stacks were
 * sampled by bytes with mean R = sample_bytes (GPULEAK_MODE=light): 1/p
 * allocations, p = 1 - exp(-size/R) (and size/p bytes); 1 when R is 0 (not
 * sampled).  The one formula behind every estimate (the report's
 * sample_weight and sample_scale, analysis/analyze.h; gpuleak top). */
static inline double snap_sample_weight(uint64_t sample_bytes, double size)
{
    if (sample_bytes == 0 || !(size > 0))
        return 1;
    double p = -expm1(-size / (double)sample_bytes);
    return p > 0 ? 1 / p : 1;
}
struct snap_torch_block {
    GL_WIRE_MEMBERS(TORCH_BLOCKS)
};

/* TORCH_STEP: one PyTorch optimizer step (docs/pytorch.md, "Steps"), with
 * its lines (`lines` of them, the tail's). */
struct snap_torch_step_line {
    uint64_t bytes, count;
    uint32_t line;
    struct snap_str file, function;
};
struct snap_torch_step {
    GL_WIRE_MEMBERS(TORCH_STEP)
    struct snap_torch_step_line *line_list;
    /* the trailer after the lines (GL_TORCH_STEP_TRAILER_SIZE), when the
     * record has one (written since 2026-12): steps recorded so far, and
     * the K of gpuleak's sampled lines then (0: not sampling) */
    bool has_trailer;
    uint64_t recorded_steps;
    uint32_t lines_every;
};

struct snap_label {
    GL_WIRE_MEMBERS(LABEL)
    struct snap_str text;
};

struct snap_pyframe {
    GL_WIRE_MEMBERS(PYFRAME)
    struct snap_str file, function;
};

struct snapshot {
    struct snap_process proc;
    struct snap_module *modules;
    size_t nmodules;
    struct snap_stack *stacks; /* sorted by id after a successful parse */
    size_t nstacks;
    uint64_t *pcs;             /* all stack pcs, back to back */
    size_t npcs;
    struct snap_alloc *allocs;
    size_t nallocs;
    struct snap_device *devices;
    size_t ndevices;
    struct snap_peak *peaks;
    size_t npeaks;
    struct snap_event *events;
    size_t nevents;
    struct snap_pool *pools;
    size_t npools;
    struct snap_vmm *vmms;
    size_t nvmms;
    struct snap_bad_free *bad_frees;
    size_t nbad_frees;
    struct snap_calls *calls;
    size_t ncalls;
    struct snap_teardown *teardowns;
    size_t nteardowns;
    struct snap_label *labels; /* sorted by id after a successful parse */
    size_t nlabels;
    struct snap_pyframe *pyframes; /* sorted by id after a successful parse */
    size_t npyframes;
    struct snap_torch torch; /* status 0: no TORCH record */
    struct snap_torch_block *torch_blocks;
    size_t ntorch_blocks;
    struct snap_torch_step *torch_steps; /* oldest first, as written */
    size_t ntorch_steps;
    struct snap_sampling sampling; /* light mode (GPULEAK_MODE=light) */
    struct snap_str *env; /* "NAME=value" (ENV record) */
    size_t nenv;
    struct snap_str *torch_settings; /* "key=value", PyTorch's allocator_settings (TORCH_SETTINGS) */
    size_t ntorch_settings;
    bool have_torch_settings;
    struct snap_torch_oom torch_oom;
    size_t unknown_records; /* skipped record types (newer writer) */
    size_t long_entries;    /* entries longer than this reader knows */
    size_t file_size;
};

/* Parses and validates buf[0..len).  Returns 0, or -1 with a one-line
 * "<reason> (at offset N)" message in err and *out left empty (freed).
 * Memory used is bounded by a small multiple of len whatever the counts in
 * the file say. */
int snap_parse(const uint8_t *buf, size_t len, struct snapshot *out,
               char *err, size_t errlen);

/* Checks the file header (magic, version, flags) in buf[0..len), len at
 * most the header's size: 0, or -1 with the message snap_parse would give. */
int snap_check_header(const uint8_t *buf, size_t len, char *err, size_t errlen);

/* Reads a file and parses it (snap_load.c): the header is checked before
 * the rest is read, and what is read from anything but a regular file is
 * bounded.  On failure err holds one line (without the file name). */
int snap_load_file(const char *path, struct snapshot *out, char *err,
                   size_t errlen);

void snap_free(struct snapshot *s);

/* The stack with this id, or NULL (id 0 = no stack is always NULL). */
const struct snap_stack *snap_find_stack(const struct snapshot *s, uint32_t id);

/* Value of an environment variable recorded in the snapshot, or NULL. */
const char *snap_env(const struct snapshot *s, const char *name);

/* The Python frame with this id (from a tagged pc), or NULL. */
const struct snap_pyframe *snap_find_pyframe(const struct snapshot *s, uint32_t id);

/* The text of annotation label id, or NULL. */
const struct snap_label *snap_find_label(const struct snapshot *s, uint32_t id);

static inline const uint64_t *snap_stack_pcs(const struct snapshot *s,
                                             const struct snap_stack *st)
{
    return s->pcs + st->pc_off;
}

#endif
