/* The text report's invalid frees across snapshots (diff, merge). */
#ifndef GPULEAK_RENDER_TEXT_BAD_FREES_MULTI_H
#define GPULEAK_RENDER_TEXT_BAD_FREES_MULTI_H

#include <stddef.h>

#include "analysis/multi/multi.h"

struct report_ctx;

/* The INVALID FREES sections of diff and merge (nothing when no snapshot has
 * any): the `top` first rows (all when 0). */
void text_bad_frees_diff(struct report_ctx *r, const struct free_table *t, size_t top);
void text_bad_frees_merge(struct report_ctx *r, struct msnap *m, const struct free_table *t, size_t top);

#endif
