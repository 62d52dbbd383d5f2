/* Tensors in PyTorch's cache across a series of snapshots (diff): the live
 * bytes of each Python line that allocated tensors, snapshot by snapshot,
 * from PyTorch's own view (TORCH_BLOCKS).  A line whose tensors grew at every
 * step of a series of three or more snapshots that all carry PyTorch's view
 * is a suspected leak: the kept-alive tensor of a training loop. */
#ifndef GPULEAK_TORCH_MULTI_H
#define GPULEAK_TORCH_MULTI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/multi/multi.h"

struct torch_mrow {
    uint32_t frame, cs;      /* stackdb frame id shared by the snapshots (0: no stack) */
    uint64_t *bytes, *count; /* n each */
    bool suspected;          /* grew at every step */
    int64_t change;          /* last - first, bytes */
};

struct torch_multi {
    size_t n;        /* snapshots */
    size_t answered; /* of them, how many carry PyTorch's view, one that adds up */
    struct torch_mrow *rows; /* suspected first, then |change| desc */
    size_t nrows;
};

void torch_multi_build(const struct msnap *m, size_t n, struct torch_multi *out);
void torch_multi_free(struct torch_multi *t);
/* Any suspected line (for --error-exitcode). */
bool torch_multi_suspected(const struct torch_multi *t);

#endif
