/* Writers for diff and merge. */
#ifndef GPULEAK_MULTI_OUT_H
#define GPULEAK_MULTI_OUT_H

#include "analysis/multi/multi.h"
#include "render/report.h"

void text_diff(struct report_ctx *r, struct msnap *m, size_t n, const struct diff_result *d);
void json_diff(struct report_ctx *r, struct msnap *m, size_t n, const struct diff_result *d);
void text_merge(struct report_ctx *r, struct msnap *m, size_t n, const struct merge_result *mr);
void json_merge(struct report_ctx *r, struct msnap *m, size_t n, const struct merge_result *mr);

#endif
