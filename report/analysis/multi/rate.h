/* The clock of a diff's series, for growth per hour (issue 45, item 8):
 * snapshots of one process share its monotonic clock (each PROCESS
 * record's snapshot_mono_ns counts from the library's load), so a line's
 * growth between two of them over the time between them is its rate.
 * Snapshots of different processes (diff --across-runs) share no clock,
 * and a snapshot that carries no time (snapshot_mono_ns 0, a writer that
 * stamped none) gives none: the series then has no rate, said once. */
#ifndef GPULEAK_MULTI_RATE_H
#define GPULEAK_MULTI_RATE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/multi/multi.h"
#include "analysis/multi/torch_multi.h"

enum series_clock_state {
    SERIES_CLOCK_KNOWN = 0,
    SERIES_CLOCK_PROCESSES, /* the snapshots come from more than one process */
    SERIES_CLOCK_NO_TIME,   /* the first or last carries no time, or no time passed */
};

struct series_clock {
    enum series_clock_state state;
    uint64_t elapsed_ns; /* from the first snapshot to the last; 0 unless known */
};

/* The clock of m[0..n), n >= 1, in the order of the series. */
struct series_clock series_clock_of(const struct msnap *m, size_t n);
/* Why a series has no rate, a phrase ("the snapshots come from ..."); NULL
 * when it has one. */
const char *series_clock_why_not(enum series_clock_state state);
/* ns from m[i] to m[k] (i < k) when clock is known and both carry a time
 * with m[k]'s later; else 0, no rate. */
uint64_t series_elapsed(const struct series_clock *clock, const struct msnap *m, size_t i, size_t k);
/* The bytes per hour of a row of CHANGES BY STACK that is a suspected leak:
 * its growth over the series' time; 0 for other rows or without a clock. */
uint64_t mrow_per_hour(const struct series_clock *clock, const struct mrow *r);
/* The same for a line of TENSORS IN PYTORCH'S CACHE that is a suspected
 * leak: its change from the first snapshot with PyTorch's view to the last
 * one, over the time between those two. */
uint64_t torch_mrow_per_hour(const struct series_clock *clock, const struct msnap *m,
                             const struct torch_multi *t, const struct torch_mrow *row);

#endif
