/* The text report's memory left to teardown across snapshots (diff, merge). */
#ifndef GPULEAK_RENDER_TEXT_TEARDOWN_MULTI_H
#define GPULEAK_RENDER_TEXT_TEARDOWN_MULTI_H

#include <stddef.h>

#include "analysis/multi/multi.h"

struct report_ctx;

/* The FREED ONLY BY A CONTEXT TEARDOWN sections of diff and merge (nothing
 * when no snapshot has any): the `top` first rows (all when 0). */
void text_torn_diff(struct report_ctx *r, const struct torn_table *t, size_t top);
void text_torn_merge(struct report_ctx *r, struct msnap *m, const struct torn_table *t, size_t top);

#endif
