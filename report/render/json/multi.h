/* The JSON reports of diff and merge. */
#ifndef GPULEAK_RENDER_JSON_MULTI_H
#define GPULEAK_RENDER_JSON_MULTI_H

#include <stddef.h>

#include "analysis/multi/multi.h"

struct report_ctx;

void json_diff(struct report_ctx *r, struct msnap *m, size_t n, const struct diff_result *d);
void json_merge(struct report_ctx *r, struct msnap *m, size_t n, const struct merge_result *mr);

#endif
