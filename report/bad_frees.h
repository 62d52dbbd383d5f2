/* Frees of addresses or handles that had no live allocation (the snapshot's
 * BAD_FREES record), in the order the outputs show them. */
#ifndef GPULEAK_BAD_FREES_H
#define GPULEAK_BAD_FREES_H

#include <stddef.h>
#include <stdint.h>

#include "snap_read.h"

struct bad_free_totals {
    uint64_t count;         /* frees */
    uint64_t refused_count; /* of which CUDA refused */
    size_t sites;           /* entries */
};

/* The entries, most frequent first (then earliest, then stack id): a
 * malloc'ed array of pointers into s, or NULL when there are none. */
const struct snap_bad_free **bad_frees_sorted(const struct snapshot *s, struct bad_free_totals *t);

struct report_ctx;
struct json;
/* The SUMMARY line ("invalid frees: ..."), when there are any. */
void text_bad_frees_summary(struct report_ctx *r);
/* The INVALID FREES section, when there are any. */
void text_bad_frees(struct report_ctx *r);
/* The "invalid_frees" member of the JSON report (always present). */
void json_bad_frees(struct report_ctx *r, struct json *j);

#endif
