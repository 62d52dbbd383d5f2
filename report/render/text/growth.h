/* PyTorch's leaks by growth and what is still reachable (analysis/
 * torch_steps.h, torch_growth_verdict), in SUMMARY and LEAKS. */
#ifndef GPULEAK_TEXT_GROWTH_H
#define GPULEAK_TEXT_GROWTH_H

#include <stdbool.h>

#include "analysis/multi/multi.h"
#include "analysis/torch_steps.h"
#include "render/report.h"

/* The verdict on r's steps, with r's --growth-steps and --min-bytes. */
void growth_judge(const struct report_ctx *r, struct growth_verdict *v);
/* SUMMARY's "leaked by growth:" line, when v found any. */
void text_growth_summary(const struct report_ctx *r, const struct growth_verdict *v);
/* SUMMARY's "still reachable:" line, when v has such lines. */
void text_reachable_summary(const struct report_ctx *r, const struct growth_verdict *v);
/* LEAKS' first paragraph: each leak by growth, its bytes per step, steps
 * and line.  Whether it wrote one. */
bool text_growth_leaks(const struct report_ctx *r, const struct growth_verdict *v);
/* LEAKS' last paragraph: one line per still-reachable site. */
void text_still_reachable(const struct report_ctx *r, const struct growth_verdict *v);
/* diff's LEAKED BY GROWTH: the verdict on the last snapshot's steps (each
 * snapshot carries the run's first and last steps, so the last one's
 * window is the newest), when it has steps. */
void text_growth_diff(const struct report_ctx *r, const struct msnap *m, size_t n);
/* merge's BY RANK: under a rank's line, its leaks by growth, if any. */
void text_growth_rank(const struct report_ctx *r, const struct snapshot *s);

#endif
