/* The table diff and merge rank: live memory of each (stack, kind, device,
 * rule) in every snapshot.  Cells are kept only where a key has live memory
 * (cells.h), so the table grows with the allocations read, not with keys x
 * snapshots. */
#ifndef GPULEAK_MTABLE_H
#define GPULEAK_MTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/multi/cells.h"

struct mrow {
    uint32_t cs;
    uint16_t kind;
    int32_t device; /* diff: the device; merge: -2 (rows span devices) */
    int32_t rule;
    const struct snapcell *cells; /* a: live bytes, b: allocations */
    size_t present;  /* snapshots in which it has live memory (its cells) */
    size_t last;     /* while filling: 1 + index of its newest cell, or 0 */
    uint64_t growth; /* |last - first| */
    bool shrank;     /* last < first */
    bool monotonic;  /* >= 3 snapshots, bytes grew at every step (an exit
                        snapshot equal to the one before is no step) */
    bool suspected;  /* diff: a suspected leak: monotonic, and no rule matched or a
                        built-in allocator-cache rule did (cache_growth) */
    bool cache_growth; /* diff: suspected, in memory an allocator cache holds: a cache
                          that grows at every step is kept-alive memory inside it */
    bool changed;    /* bytes or count differ between some snapshots */
    bool beyond_torch; /* diff: some allocation of it is no segment that PyTorch's
                          view (one that adds up) explains, or no snapshot with the
                          view has it: mt_find, set by the caller */
    bool torch_seen;   /* diff: a snapshot with PyTorch's view has it as its segment */
    uint64_t total;  /* bytes summed over the snapshots (saturating) */
};

struct mtable {
    struct mrow *rows;
    size_t n, cap, nshown;
    size_t nsnaps;
    bool final_last; /* the last snapshot is a process's exit one: set before
                        mt_finish; where a row's bytes there equal the ones
                        before, it is no step of that row's growth */
    struct snapcell *cells; /* by row after mt_finish, each row's in order */
    size_t ncells, ncells_cap;
    uint32_t *slots; /* open addressing: row index + 1, 0 empty */
    size_t nslots;
    uint64_t *scratch; /* 2 * nsnaps: one row expanded by mt_expand */
};

/* 0, or -1 when out of memory. */
int mt_init(struct mtable *t, size_t nsnaps);
/* Adds one live allocation of `bytes` to the key's cell in snapshot snap.
 * Snapshots are added in increasing order.  0, or -1 when out of memory. */
int mt_add(struct mtable *t, uint32_t cs, uint16_t kind, int32_t dev, int32_t rule, size_t snap,
           uint64_t bytes);
/* After the last mt_add: gives every row its cells and its figures (growth,
 * monotonic, changed, present, total); rows may then be sorted.  0, or -1
 * when out of memory. */
int mt_finish(struct mtable *t);
/* The row's bytes and allocations in every snapshot (0 where it has none),
 * in the table's scratch arrays: valid until the next call. */
void mt_expand(const struct mtable *t, const struct mrow *r, const uint64_t **bytes,
               const uint64_t **count);
/* The row of a key already added, NULL when there is none.  Valid until
 * the next mt_add. */
struct mrow *mt_find(struct mtable *t, uint32_t cs, uint16_t kind, int32_t dev, int32_t rule);
void mt_free(struct mtable *t);

#endif
