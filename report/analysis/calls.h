/* Allocation calls per call stack (the snapshot's CALLS record): how many
 * calls made memory at each site since tracking started, how many of those
 * were freed, and the bytes made -- heaptrack's "most calls to allocation
 * functions".  On a GPU this is where time goes: cudaMalloc is slow and
 * cudaFree waits for the device, so a site that allocates and frees in a
 * loop costs time even when it leaks nothing. */
#ifndef GPULEAK_CALLS_H
#define GPULEAK_CALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/multi/cells.h"
#include "analysis/multi/multi.h"
#include "model/stackdb.h"

/* Entries regrouped by canonical stack, API and kind. */
struct call_site {
    uint32_t cs, stack_id; /* canonical stack; lowest snapshot stack id */
    uint16_t api, kind;
    uint64_t allocs, frees, bytes;
    /* What they stand for (sample_scale, analyze.h): the counts themselves
     * unless the snapshot was sampled; 0 for the calls not sampled.  A merge
     * sums each snapshot's own estimates (each scaled by its own R). */
    double est_allocs, est_frees, est_bytes;
    /* merge only: the calls (a) in each snapshot that has the site (NULL
     * otherwise), and in how many */
    const struct snapcell *cells;
    size_t present;
};

struct call_sites {
    struct call_site *site; /* most calls first, then most bytes, then stack id */
    size_t n;
    uint64_t allocs, frees, bytes; /* all sites (saturating) */
    bool sampled;                  /* some snapshot's calls were sampled */
    struct snapcell *cells;        /* merge: the sites' cells */
    uint64_t *scratch;             /* merge: one site's calls in every snapshot */
    size_t nsnaps;                 /* merge: snapshots; 0 otherwise */
};

/* 0, or -1 when out of memory.  Empty when the snapshot has no CALLS. */
int calls_build(const struct snapview *v, struct call_sites *out);
/* The calls made between two snapshots of one process (the counters only
 * grow): per site, last minus first, sites with new calls only, most first.
 * Both views must share one stackdb.  0, or -1 when out of memory. */
int calls_between(const struct snapview *first, const struct snapview *last, struct call_sites *out);
/* Several snapshots (merge): sites matched by shown stack, API and kind
 * across them, calls summed, with each snapshot's share.  The views must
 * share one stackdb.  0, or -1 when out of memory. */
int calls_merge(struct msnap *m, size_t n, struct call_sites *out);
void calls_free(struct call_sites *c);

#endif
