/* PyTorch's caching allocator as it reported itself (TORCH, TORCH_BLOCKS):
 * per segment, the live tensors that hold it, grouped by the Python line
 * that allocated them, matched to the allocation gpuleak saw for the
 * segment (docs/pytorch.md). */
#ifndef GPULEAK_TORCH_BLOCKS_H
#define GPULEAK_TORCH_BLOCKS_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "model/stackdb.h"

/* The live tensors of one segment (or of the whole cache) allocated at one
 * Python line: frame is a stackdb frame id, the block's stack's label frame
 * (model/user_frame.h: outside PyTorch's own code); 0 when PyTorch recorded no
 * stack.  cs: the whole stack of the first such block. */
struct torch_line {
    uint32_t frame, cs;
    uint64_t bytes, requested, count;
};

struct torch_segment {
    uint64_t address;
    int32_t device;
    uint64_t size;     /* gpuleak's allocation's size; the blocks' sum when it saw none */
    long alloc;        /* index in snapshot.allocs, -1 when gpuleak saw no cudaMalloc there */
    bool before_attach; /* PyTorch reserved it before gpuleak attach (its blocks' flag) */
    uint64_t allocated_bytes, allocated_count; /* active_allocated */
    uint64_t pending_bytes;                    /* active_pending_free */
    uint64_t cached_bytes, cached_count;       /* inactive */
    struct torch_line *lines;                  /* bytes desc */
    size_t nlines;
};

struct torch_blocks {
    uint32_t status;    /* enum gl_torch_status; 0: the snapshot has no TORCH record */
    uint64_t reserved_bytes, allocated_bytes; /* as PyTorch summed them */
    uint32_t segments_reported;
    struct torch_segment *segs; /* allocated bytes desc, then address */
    size_t nsegs;
    struct torch_line *lines;   /* every segment's, merged by frame; bytes desc */
    size_t nlines;
    uint64_t tensors;           /* live blocks in all */
};

void torch_blocks_build(const struct snapview *v, struct torch_blocks *out);
void torch_blocks_free(struct torch_blocks *t);

/* The frame a block's stack is shown by (see struct torch_line), 0 for none. */
uint32_t torch_line_frame(const struct snapview *v, uint32_t stack_id, uint32_t *cs);

#endif
