/* PYTORCH'S CACHE: the tensors in each segment of PyTorch's caching
 * allocator (the TORCH record; docs/pytorch.md). */
#ifndef GPULEAK_TEXT_TORCH_H
#define GPULEAK_TEXT_TORCH_H

#include "analysis/multi/multi.h"
#include "render/report.h"

void text_torch(const struct report_ctx *r);

/* diff: TENSORS IN PYTORCH'S CACHE, each Python line's live tensors over
 * the series, the lines that grew at every step flagged. */
void text_torch_diff(const struct report_ctx *r, const struct msnap *m, size_t n);

#endif
