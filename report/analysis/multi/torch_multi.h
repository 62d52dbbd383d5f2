/* Tensors in PyTorch's cache across a series of snapshots (diff): the live
 * bytes of each Python line that allocated tensors, snapshot by snapshot,
 * from PyTorch's own view (TORCH_BLOCKS).  A line whose tensors grew at every
 * step of a series of three or more snapshots that carry PyTorch's view is
 * a suspected leak: the kept-alive tensor of a training loop.
 *
 * A snapshot without a view that adds up (no TORCH record, PyTorch not
 * answering, _snapshot() failing, a view torch_check.h rejects) says
 * nothing about the tensors: they are unknown there, never zero.  Such a
 * snapshot is no step of the series (the steps join the snapshots that
 * carry the view), its cells are marked unknown (known[i] false), and a
 * line's change is from the first snapshot that carries the view to the
 * last (issue 48, item 14: a detach snapshot without the view, read as
 * zero tensors, made the kept line vanish from the diff). */
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
    int64_t change;          /* bytes: in the last snapshot with the view - in the first */
};

struct torch_multi {
    size_t n;        /* snapshots */
    size_t answered; /* of them, how many carry PyTorch's view, one that adds up */
    bool *known;     /* n: whether snapshot i carries it (its cells are unknown if not) */
    struct torch_mrow *rows; /* suspected first, then |change| desc */
    size_t nrows;
};

/* Whether m's snapshot carries PyTorch's view, one that adds up. */
bool torch_view_known(const struct msnap *m);
void torch_multi_build(const struct msnap *m, size_t n, struct torch_multi *out);
void torch_multi_free(struct torch_multi *t);
/* Any suspected line (for --error-exitcode). */
bool torch_multi_suspected(const struct torch_multi *t);

#endif
