/* Which of PyTorch's optimizer steps get a view (issue 46): the step hook
 * (control/torch_steps.c) asks at every step; the answer numbers the step
 * and says whether to read PyTorch's counters this time.
 *
 * The first GL_TORCH_STEP_ALWAYS_VIEWED steps are all viewed, so a short
 * run (a test, a CI gate, the growth verdict over its last steps) sees each
 * one.  After them, GPULEAK_STEP_VIEW_EVERY decides: `auto` (the default)
 * spaces the views so that a view's CPU time (the least of the last four
 * plain views: one slowed by a garbage collection inside it does not hold
 * the next ones off) is at most 1/GL_TORCH_STEP_VIEW_RATIO of the calling
 * thread's CPU time between views: a step is viewed once the thread's CPU
 * time since the last view's end reaches RATIO x that cost (one read of
 * the thread's CPU clock a step).  Counted in the thread's CPU time, not
 * the wall clock, the pace is
 * the same on a loaded machine and an idle one (and under callgrind, which
 * counts the instructions that make bench judges), and a step that waits
 * (a blocking GPU sync, I/O) counts only its work: views cost at most
 * 0.25% of the thread's work and so of its time; a 2.5 ms CPU-bound step
 * is viewed about one step in five; N (1 to 1,000,000) views one step in
 * N, 1 every step.  The hook views a sampled step (lines,
 * GPULEAK_STEP_LINES_EVERY) and a time window
 * whatever the answer.  Everything here runs with the GIL (the hook, the
 * window's pending call), so one caller at a time; docs/pytorch.md,
 * "Steps: which are viewed". */
#ifndef GL_TORCH_STEP_PACE_H
#define GL_TORCH_STEP_PACE_H

#include <stdbool.h>
#include <stdint.h>

#include "snapshot_format.h"

#define GL_TORCH_STEP_ALWAYS_VIEWED 64 /* a plain number: the step hook's Python spells it too */
#define GL_TORCH_STEP_VIEW_RATIO 400u /* auto: views within 0.25% of the thread's CPU time */

/* GPULEAK_STEP_VIEW_EVERY, at activation: `auto` or 1 to 1,000,000. */
void gl_step_pace_configure(void);

/* A step (or window) begins its hook: its number, from 1, and in *view
 * whether C asks for its view.  Asking, it notes the thread's CPU time. */
uint64_t gl_step_pace_begin(bool *view);

/* Steps numbered so far: a record may name none above it. */
uint64_t gl_step_pace_numbered(void);

/* Step `step`'s view arrived.  A view that walked PyTorch's _snapshot() (with
 * lines: a sampled step, a recorder kept on) is not what a plain view
 * costs, so only plain views set the cost that paces the next. */
void gl_step_pace_viewed(uint64_t step, bool with_lines);

/* fork: the child numbers its steps from 1 again. */
void gl_step_pace_postfork_child(void);

#endif
