/* The snapshots a multi-snapshot analysis reads, and which of them one
 * process wrote (msnap.c): what diff and merge (multi.c), PyTorch's part of
 * a series (torch_multi.c) and the command line ask, apart from both so
 * that neither file calls the other back for it. */
#ifndef GPULEAK_MSNAP_H
#define GPULEAK_MSNAP_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/analyze.h"
#include "model/stackdb.h"

struct msnap {
    const char *path;
    struct snapshot s;
    struct symbolizer *sy;
    struct snapview v;
};

/* Whether two snapshots were written by one process: the same host, pid,
 * start time and rank in their process records.  Only such snapshots share
 * a clock and an address space, so only they make a series (diff). */
bool msnap_same_process(const struct snap_process *a, const struct snap_process *b);
/* Whether m[n-1] may be a repeat that is no step of growth: the exit
 * (final) snapshot of the process that wrote m[n-2], after three or more
 * others.  A row whose bytes there equal those in m[n-2] is then judged
 * over m[0..n-1) (a series ending in the exit snapshot kept its
 * "suspected leak"). */
bool msnap_final_repeat_possible(const struct msnap *m, size_t n);
/* The first snapshot of m[1..n) whose program (model/program.h) is not
 * m[0]'s, or 0 when all ran one program. */
size_t msnap_other_program(const struct msnap *m, size_t n);
/* How many distinct processes wrote m[0..n); first[0..ret) (when not NULL,
 * room for n) gets the index of each one's first snapshot, in order. */
size_t msnap_processes(const struct msnap *m, size_t n, size_t *first);

#endif
