/* PYTORCH STEPS: the optimizer steps gpuleak's step hook kept (TORCH_STEP
 * records; docs/pytorch.md, "Steps"): allocated and reserved per step, and
 * the Python lines whose live tensors grew. */
#ifndef GPULEAK_TEXT_TORCH_STEPS_H
#define GPULEAK_TEXT_TORCH_STEPS_H

#include "render/report.h"

void text_torch_steps(const struct report_ctx *r);
/* A step's line as frames are shown: "function (file:line)", the file by
 * its last component. */
struct snap_torch_step_line;
void put_step_line(FILE *f, const struct snap_torch_step_line *l);

#endif
