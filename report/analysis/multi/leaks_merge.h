/* merge's leaks by site across ranks: every stack with memory still live
 * outside caches, suppressions and other processes' mappings on some rank,
 * which ranks, the bytes on each, and whether the ranks differ. */
#ifndef GPULEAK_LEAKS_MERGE_H
#define GPULEAK_LEAKS_MERGE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/multi/mtable.h"

struct leak_site {
    const struct mrow *row;
    uint64_t min_bytes, max_bytes; /* over the ranks it is on */
    size_t min_snap, max_snap;     /* the first snapshot with each */
};

struct leak_sites {
    struct leak_site *v; /* largest total first, then the table's order */
    size_t n;            /* of at least min_bytes in all */
    uint64_t bytes;      /* their total, saturating */
};

/* From merge's table (mt_finish done).  0, or -1 when out of memory. */
int leak_sites_build(const struct mtable *t, uint64_t min_bytes, struct leak_sites *out);
void leak_sites_free(struct leak_sites *l);

struct msnap;

#endif
