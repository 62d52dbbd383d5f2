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
/* "leaks_by_growth": PyTorch's verdict on its steps (analysis/torch_steps.h,
 * torch_growth_verdict) with the report's --growth-steps and --min-bytes:
 * the leaks by growth and the lines still reachable.  Absent when the
 * snapshot has no steps. */
void json_leaks_by_growth(const struct report_ctx *r, struct json *j);
/* One leak by growth: {"kind": "leak-by-growth", its line, bytes per step,
 * steps, bytes at both ends, tensors}; also the verdict's (cli/verdict.c). */
struct growth_leak;
void json_growth_leak(struct json *j, const struct growth_leak *g);
void json_torch_diff(const struct report_ctx *r, struct json *j, const struct msnap *m, size_t n);
/* A diff's "leaks_by_growth": the last snapshot's, as a report's (absent
 * when it has no steps). */
void json_leaks_by_growth_diff(const struct report_ctx *r, struct json *j, const struct msnap *m, size_t n);
/* A merge rank's "leaks_by_growth": its leaks by growth ([] when none). */
void json_rank_leaks_by_growth(const struct report_ctx *r, struct json *j, const struct snapshot *s);

#endif
