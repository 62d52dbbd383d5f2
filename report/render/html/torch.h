/* The HTML page's PyTorch members (torch.c): the "torch" member of one
 * snapshot (its tensors by line, per segment) and the growth member's
 * tensor lines across snapshots. */
#ifndef GPULEAK_RENDER_HTML_TORCH_H
#define GPULEAK_RENDER_HTML_TORCH_H

#include <stddef.h>

#include "analysis/multi/multi.h"
#include "render/html/hw.h"

struct report_ctx;

void html_torch(struct hw *w, const struct report_ctx *r);
/* growth.torch: cols are the growth member's snapshot columns. */
void html_torch_growth(struct hw *w, const struct msnap *m, size_t n, const size_t *cols, size_t ncols);

#endif
