/* Invalid frees across snapshots, for diff and merge.  The BAD_FREES
 * entries of every snapshot are matched by site: the shown stack (through
 * the shared stackdb, so across processes too), the API, the device and
 * whether CUDA refused the free.  Each site has a count per snapshot.  A
 * process's counts only grow, so in a diff of one process last minus first
 * is the invalid frees made in between. */
#ifndef GPULEAK_BAD_FREES_MULTI_H
#define GPULEAK_BAD_FREES_MULTI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/multi/sites_multi.h"

struct msnap; /* multi.h, which includes this file */

struct free_table {
    struct site_table s; /* diff: changed first, by change; merge: by total */
    size_t nsnaps;
    uint64_t *count, *refused_count; /* per snapshot */
};

/* 0, or -1 when out of memory.  merge: rows ordered for merge. */
int free_table_build(struct msnap *m, size_t n, bool merge, struct free_table *out);
void free_table_free(struct free_table *t);
/* A site CUDA refused whose count grew from the first snapshot to the last. */
bool free_table_refused_grew(const struct free_table *t);

#endif
