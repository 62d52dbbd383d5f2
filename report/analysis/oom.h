/* Out of memory: the allocations that failed for lack of memory, each with
 * what was asked for, the driver's free and total memory at that moment,
 * how much of what was in use this process's live allocations account for,
 * and the failing call's stack -- the questions PyTorch's OOM message
 * answers, for any CUDA program.  From the history's OOM events and the
 * devices' failed-allocation counters. */
#ifndef GPULEAK_OOM_H
#define GPULEAK_OOM_H

#include <stdbool.h>
#include <stdint.h>

struct hist_mark;

struct snapshot;

/* The allocations a snapshot's devices failed for lack of memory
 * (saturating). */
uint64_t oom_failed_count(const struct snapshot *s);

/* In use at an OOM event beyond this process's live allocations (0 when
 * the driver's view is not known). */
uint64_t oom_elsewhere(const struct hist_mark *m);

/* An out-of-memory mark of the history (GL_EV_OOM). */
bool oom_is_mark(const struct hist_mark *m);

#endif
