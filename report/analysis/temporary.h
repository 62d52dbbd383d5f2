/* Temporary allocations, as heaptrack_print counts them: an allocation whose
 * free is the next allocation or free the process made, with nothing else
 * allocated or freed in between.  Read from the history (EVENTS: the most
 * recent allocations and frees).  On a GPU such a pair is the costly
 * pattern a cache exists for: cudaMalloc is slow and cudaFree waits for the
 * device, for memory that lived only between two calls. */
#ifndef GPULEAK_TEMPORARY_H
#define GPULEAK_TEMPORARY_H

#include <stddef.h>
#include <stdint.h>

#include "model/stackdb.h"

/* The allocations of one shown stack, API and kind that the history holds. */
struct temp_site {
    uint32_t cs, stack_id; /* canonical stack; the lowest snapshot stack id */
    uint16_t api, kind;
    uint64_t temporary, bytes; /* temporary allocations, and their bytes */
    uint64_t allocs;           /* all its allocations in the history */
};

struct temporaries {
    /* sites with a temporary allocation: most first, then most bytes, then
     * lowest stack id */
    struct temp_site *site;
    size_t n;
    uint64_t allocs;           /* allocations in the history */
    uint64_t temporary, bytes; /* of them temporary, and their bytes (saturating) */
};

/* 0, or -1 when out of memory.  Empty when the history holds no allocation. */
int temporaries_build(const struct snapview *v, struct temporaries *out);
void temporaries_free(struct temporaries *t);

#endif
