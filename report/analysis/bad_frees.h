/* Frees of addresses or handles that had no live allocation (the snapshot's
 * BAD_FREES record), in the order the outputs show them. */
#ifndef GPULEAK_BAD_FREES_H
#define GPULEAK_BAD_FREES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/snap_read.h"
#include "snapshot_format.h"

struct bad_free_totals {
    uint64_t count;         /* frees */
    uint64_t refused_count; /* of which CUDA refused */
    size_t sites;           /* entries */
    uint64_t double_count;  /* of the refused, double frees (bad_free_is_double) */
    size_t double_sites;
};

/* The entries, most frequent first (then earliest, then stack id): a
 * malloc'ed array of pointers into s, or NULL when there are none. */
const struct snap_bad_free **bad_frees_sorted(const struct snapshot *s, struct bad_free_totals *t);

/* valgrind's "Address ... was free'd": from the history, the last free of the
 * site's first address before its first bad free, and the allocation that
 * free ended (*alloc; NULL if it has left the history).  NULL when the
 * history holds no such free (none kept, wrapped, or never allocated). */
const struct snap_event *bad_free_previous(const struct snapshot *s, const struct snap_bad_free *b,
                                           const struct snap_event **alloc);

/* CUDA refused it (an invalid free), rather than accepted one gpuleak could
 * not match. */
static inline bool bad_free_refused(const struct snap_bad_free *b)
{
    return (b->flags & GL_BAD_FREE_F_REJECTED) != 0;
}

/* A double free, as valgrind and compute-sanitizer tell it from other
 * invalid frees: CUDA refused it and the history holds an earlier free of
 * that very address (with no allocation there since, or this free would
 * have matched it).  Without a history (GPULEAK_MAX_ENTRIES=0, or wrapped
 * past it) a double free cannot be told apart: it stays an invalid free. */
bool bad_free_is_double(const struct snapshot *s, const struct snap_bad_free *b);

#endif
