/* Memory freed only by a context teardown, across snapshots, for diff and
 * merge: the TEARDOWN entries of every snapshot matched by site (shown
 * stack, kind, API, device, teardown call and rule; sites_multi.h), bytes
 * and allocations per snapshot.  A process's teardown leaks only grow, so
 * in a diff of one process the growth is what teardowns released in
 * between that the program had never freed. */
#ifndef GPULEAK_TEARDOWN_MULTI_H
#define GPULEAK_TEARDOWN_MULTI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/multi/sites_multi.h"

struct msnap; /* multi.h, which includes this file */

struct torn_table {
    struct site_table s; /* by bytes; diff: changed first; merge: by total */
    size_t nsnaps;
    uint64_t *bytes, *count, *leaked_bytes; /* per snapshot; leaked: no rule */
};

/* 0, or -1 when out of memory. */
int torn_table_build(struct msnap *m, size_t n, bool merge, struct torn_table *out);
void torn_table_free(struct torn_table *t);
/* diff: a site no rule matched whose bytes grew by at least floor. */
bool torn_table_grew(const struct torn_table *t, uint64_t floor);
/* merge: some snapshot has a site no rule matched of at least floor bytes. */
bool torn_table_leak_any(const struct torn_table *t, uint64_t floor);

#endif
