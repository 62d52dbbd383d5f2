/* "torch" (a report) and "torch_lines" (a diff): PyTorch's cache as it
 * reported itself (docs/json-output.md). */
#ifndef GPULEAK_JSON_TORCH_H
#define GPULEAK_JSON_TORCH_H

#include "analysis/multi/multi.h"
#include "render/json/json.h"
#include "render/report.h"

void json_torch(const struct report_ctx *r, struct json *j);
/* "torch_steps" (a report): PyTorch's optimizer steps, when the snapshot has them. */
void json_torch_steps(const struct report_ctx *r, struct json *j);
void json_torch_diff(const struct report_ctx *r, struct json *j, const struct msnap *m, size_t n);

#endif
