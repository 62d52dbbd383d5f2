/* Growth per hour over PyTorch's time windows (issue 45, item 8): a
 * server's steps are windows of GPULEAK_STEP_INTERVAL (TORCH_STEP records
 * flagged GL_TORCH_STEP_F_WINDOW), each stamped with the time it ended
 * (time_ns, from the library's load), so a line that grew from one window
 * to another grew at its growth over the time between them. */
#ifndef GPULEAK_STEP_RATE_H
#define GPULEAK_STEP_RATE_H

#include <stdint.h>

#include "analysis/torch_steps.h"
#include "model/snap_read.h"

/* The bytes per hour of growing line g of s (torch_steps_growth): its
 * growth over the time from its first step to its last, when every record
 * from the one to the other is a time window and time passed between them;
 * else 0 (optimizer steps are counted in steps, not hours). */
uint64_t step_growth_per_hour(const struct snapshot *s, const struct step_growth *g);

#endif
