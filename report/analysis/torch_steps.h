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

#endif
