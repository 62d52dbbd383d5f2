/* PyTorch's optimizer steps (TORCH_STEP records, docs/pytorch.md "Steps"):
 * the lines whose live tensor bytes grew over the steps kept. */
#ifndef GPULEAK_TORCH_STEPS_H
#define GPULEAK_TORCH_STEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/snap_read.h"

/* One line of the last step whose lines are known that holds more bytes
 * than at the first such step (0 where it was absent then). */
struct step_growth {
    const struct snap_torch_step_line *line; /* the last step's entry */
    uint64_t from_bytes, grown;
    uint64_t from_step, to_step;
    bool every_step; /* its bytes grew from each step with lines to the next */
};

/* The growing lines, most grown first (ties: file, line), at most max;
 * none when fewer than two steps have lines.  *out is malloc'd (free it). */
size_t torch_steps_growth(const struct snapshot *s, size_t max, struct step_growth **out);

/* The verdict for PyTorch (docs/pytorch.md, "Leaks by growth"): a leak by
 * growth is a Python line whose live tensor bytes grew at each of the last
 * N steps with lines (each step's bytes above the step's before), by at
 * least the floor from the first of those N + 1 steps to the last.  Where
 * fewer than N + 1 steps have lines (PyTorch's recorder off), the same rule
 * on the allocated total of the last N + 1 steps; when it finds growth and
 * at least two steps have lines (gpuleak's sampled steps), the lines that
 * grew at each of those name it, else the lines are unknown.  A line's
 * bytes per step count the steps PyTorch's recorder was on for, where the
 * records say (recorded_steps), else the step numbers. */
#define GROWTH_STEPS_DEFAULT 3u
#define GROWTH_STEPS_MAX GL_TORCH_STEPS_KEPT /* a window of N + 1 records kept */

struct growth_leak {
    const struct snap_torch_step_line *line; /* the window's last step's entry; NULL: allocated */
    uint64_t from_bytes, to_bytes;           /* at from_step and at to_step */
    uint64_t per_step;                       /* (to - from) / the steps between, rounded down (recorded ones for lines) */
    uint64_t from_step, to_step;             /* the window: N steps grew after from_step */
};

struct growth_verdict {
    unsigned steps;           /* N */
    bool lines_known;         /* the rule ran on lines; false: on allocated, or not at all */
    bool lines_sampled;       /* the allocated total grew at each step; lines from fewer steps name it */
    bool judged;              /* enough steps for the rule: N + 1 (with lines, or not) */
    struct growth_leak *leaks; /* most bytes per step first (ties: file, line) */
    size_t n;
    uint64_t per_step;         /* the leaks' bytes per step, summed */
    uint64_t last_step;        /* the window's last step (judged) */
    /* "Still reachable": the window's last step's other lines, most bytes
     * first: live, but not growing (weights, optimizer state); at exit,
     * the exit snapshot's (growth_reachable_at_exit) */
    const struct snap_torch_step_line **reachable;
    size_t nreachable;
    uint64_t reachable_bytes, reachable_count;
    bool reachable_at_exit;                 /* from TORCH_BLOCKS at exit, not from a step */
    struct snap_torch_step_line *exit_lines; /* what reachable points to then */
};

/* Judges s's steps: steps is N (0: GROWTH_STEPS_DEFAULT; at most
 * GROWTH_STEPS_MAX), floor the least growth over the window (at least 1).
 * Its arrays are malloc'd: growth_verdict_free. */
void torch_growth_verdict(const struct snapshot *s, unsigned steps, uint64_t floor, struct growth_verdict *out);
void growth_verdict_free(struct growth_verdict *v);

/* Still reachable at exit: where sv's snapshot is an exit snapshot that
 * carries PyTorch's answered view with live tensors (TORCH_BLOCKS), v's
 * still-reachable lines become its live tensors by Python line, most bytes
 * first, the leaks' lines left out: what the program still held when it
 * ended, not at its last step.  Otherwise (sv NULL included) v is left as
 * torch_growth_verdict made it. */
struct snapview;
void growth_reachable_at_exit(const struct snapview *sv, struct growth_verdict *v);

#endif
