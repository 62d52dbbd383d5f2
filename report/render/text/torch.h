/* PYTORCH'S CACHE: the tensors in each segment of PyTorch's caching
 * allocator (the TORCH record; docs/pytorch.md). */
#ifndef GPULEAK_TEXT_TORCH_H
#define GPULEAK_TEXT_TORCH_H

#include "render/report.h"

void text_torch(const struct report_ctx *r);

#endif
