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
    /* merge only: the calls (a) in each snapshot that has the site (NULL
     * otherwise), and in how many */
    const struct snapcell *cells;
    size_t present;
};

struct call_sites {
    struct call_site *site; /* most calls first, then most bytes, then stack id */
    size_t n;
    uint64_t allocs, frees, bytes; /* all sites (saturating) */
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

struct report_ctx;
struct json;
/* The ALLOCATION CALLS section: the first `top` sites (all when 0). */
void text_calls(struct report_ctx *r, size_t top);
/* The "allocation_calls" member (always present; every site). */
void json_calls(struct report_ctx *r, struct json *j);
/* The same for diff, between its first and last snapshots: a section
 * (top sites) and a member; "not applicable" / null unless `same_process`. */
void text_calls_between(struct report_ctx *r, const struct snapview *first, const struct snapview *last,
                        bool same_process, size_t top);
void json_calls_between(struct report_ctx *r, struct json *j, const struct snapview *first,
                        const struct snapview *last, bool same_process);
/* merge: the section (top sites; nothing when no snapshot recorded calls)
 * and the "allocation_calls" member, each site with its ranks. */
void text_calls_merge(struct report_ctx *r, struct msnap *m, size_t n, size_t top);
void json_calls_merge(struct report_ctx *r, struct json *j, struct msnap *m, size_t n);

#endif
