/* The block a bad free's address lies inside, as valgrind and
 * compute-sanitizer say it ("16 bytes inside a block of size 4096"): found
 * among the snapshot's live allocations and in its event history. */
#ifndef GPULEAK_BAD_FREE_BLOCK_H
#define GPULEAK_BAD_FREE_BLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "model/snap_read.h"

struct bad_free_block {
    bool found;
    bool freed;            /* freed before the bad free (then free_time_ns) */
    uint64_t base, bytes;  /* the block */
    uint64_t alloc_seq, alloc_time_ns, free_time_ns;
    uint32_t stack_id;     /* where it was allocated */
};

/* One entry per s->bad_frees[i] (same index): the latest block allocated
 * before the site's first bad free whose range holds its address strictly
 * after the start.  Arrays and physical VMM handles are handles, not
 * addresses, and never match.  Linear in allocations plus events (times
 * log of the sites).  A malloc'ed array, NULL when there are no sites. */
struct bad_free_block *bad_free_blocks(const struct snapshot *s);

#endif
