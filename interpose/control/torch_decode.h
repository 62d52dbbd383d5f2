/* PyTorch's answer, decoded (torch_decode.c): the bytes the collect snippet
 * (control/torch_answer.c) packs from torch.cuda.memory._snapshot(), turned
 * into a view a snapshot writes.  A pure function of its input: no Python,
 * no global state; tests/unit/torch_decode.c feeds it answers recorded from
 * real PyTorch (tests/unit/data/torch_answers/). */
#ifndef GL_CONTROL_TORCH_DECODE_H
#define GL_CONTROL_TORCH_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "state/view_stacks.h"

struct gl_torch_block {
    uint64_t segment, address, size, requested_size;
    uint32_t stack_id; /* a stack of Python frames in the view's own table; 0: none */
    int32_t device;
    uint16_t state; /* enum gl_torch_block_state */
    uint16_t flags; /* GL_TORCH_BLOCK_F_*: its segment was made before the attach */
};

/* PyTorch's out-of-memory observer's figures (TORCH_OOM): the device, the
 * bytes it asked CUDA for, what it may use there, the driver's free memory
 * then.  present false: not an observer's snapshot. */
struct gl_torch_oom {
    bool present;
    int32_t device;
    uint64_t request, allowed, free;
};

struct gl_torch_view {
    uint32_t status; /* enum gl_torch_status; 0: nothing to write (no torch, or not asked) */
    uint32_t segments;
    uint64_t reserved_bytes, allocated_bytes;
    uint64_t age_us; /* 0: asked for this snapshot; else how old the last view is */
    /* max_memory_allocated() and max_memory_reserved() summed over the
     * devices; 0: not known */
    uint64_t max_allocated_bytes, max_reserved_bytes;
    /* PyTorch's allocator_settings as TORCH_SETTINGS' tail: nsettings
     * times (u32 length + "key=value"), malloc'd; NULL: none */
    uint32_t nsettings;
    size_t settings_len;
    char *settings;
    struct gl_torch_oom oom;
    size_t nblocks;
    struct gl_torch_block *blocks;
    /* The blocks' stacks and their Python frames, this view's only: written
     * into its snapshot alone, numbered after the process's own there
     * (control/snapshot.c), and freed with the view, so a later snapshot
     * does not carry them (issue 34, defect 8). */
    struct gl_view_stacks stacks;
};

/* The answer's layout: "GLT1", u32 blocks, u32 segments, u64 reserved, u64
 * allocated; per block u64 segment, address, size, requested_size, i32
 * device, u16 state, u16 0, u32 frames, then frames x (u32 line, u32 file,
 * u32 name) as string indexes, innermost first; then u32 strings and each
 * as u32 length + UTF-8.  Optionally followed by "GLX1", u64 maxima of
 * allocated and reserved bytes, u32 settings and each as u32 length +
 * "key=value".  Fills *v (zeroed by the caller): its blocks, their stacks
 * in the view's own table, the maxima and settings; status, age and oom are
 * left to the caller.  False on anything malformed (then *v may hold part
 * of it: free it with gl_torch_view_free).  At most GL_TORCH_MAX_FRAMES
 * frames a block. */
#define GL_TORCH_MAX_FRAMES 64
bool gl_torch_decode(const char *buf, size_t len, struct gl_torch_view *v);

/* Frees what a view holds (blocks, settings, its stacks); *v stays usable. */
void gl_torch_view_free(struct gl_torch_view *v);

#endif
