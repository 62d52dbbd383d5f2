/* PyTorch's view of its cache (TORCH, TORCH_BLOCKS) checked against itself
 * and against the allocations gpuleak saw: a view that does not add up (a
 * hostile or broken torch.cuda.memory._snapshot(); issue 34, defect 9 saw
 * 1.8 GB allocated inside 2 MiB reserved) is flagged, and its numbers are
 * used for nothing (docs/pytorch.md, "When PyTorch's view does not add up"):
 *
 *  - allocated no more than reserved;
 *  - the live blocks' sizes sum to the stated allocated bytes, and all
 *    blocks' sizes to the stated reserved bytes (a segment's blocks tile it);
 *  - the blocks name as many segments as stated;
 *  - every block within its segment (from its address, as long as its
 *    blocks' sizes sum), no two blocks of a segment overlapping;
 *  - no two segments overlapping;
 *  - a segment where gpuleak saw a cudaMalloc fits in it, on its device, and
 *    no segment overlaps a cudaMalloc that starts elsewhere. */
#ifndef GPULEAK_TORCH_CHECK_H
#define GPULEAK_TORCH_CHECK_H

#include <stddef.h>

#include "model/snap_read.h"

struct torch_check {
    char **problems; /* one phrase each, in the order of the list above */
    size_t nproblems;
};

/* Checks s's view (none when s has no answered TORCH record). */
void torch_check_build(const struct snapshot *s, struct torch_check *out);
void torch_check_free(struct torch_check *c);

#endif
