#ifndef GPULEAK_RENDER_TEXT_CALLS_H
#define GPULEAK_RENDER_TEXT_CALLS_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/calls.h"

struct report_ctx;

/* The ALLOCATION CALLS section: the first `top` sites (all when 0). */
void text_calls(struct report_ctx *r, size_t top);
/* The same for diff, between its first and last snapshots (top sites);
 * "not applicable" unless `same_process`. */
void text_calls_between(struct report_ctx *r, const struct snapview *first, const struct snapview *last,
                        bool same_process, size_t top);
/* merge: the section (top sites; nothing when no snapshot recorded calls),
 * each site with its ranks. */
void text_calls_merge(struct report_ctx *r, struct msnap *m, size_t n, size_t top);

#endif
