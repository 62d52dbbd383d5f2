/* Per-site counters matched across snapshots, for diff and merge.  A
 * snapshot's cumulative tables (BAD_FREES: invalid frees; TEARDOWN: memory
 * released by a context teardown) hold one entry per site; here each site
 * becomes a row with its count and bytes in every snapshot.  Sites are
 * matched by their key: the shown stack (through the shared stackdb, so
 * across processes too) and the fields below; stacks that fold to the same
 * shown stack are one site.  A process's counters only grow, so in a diff
 * of one process last minus first is what happened in between. */
#ifndef GPULEAK_SITES_MULTI_H
#define GPULEAK_SITES_MULTI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/multi/cells.h"

struct site_key {
    uint32_t cs;
    int32_t device;
    int32_t rule;                  /* -1: none (invalid frees: always) */
    uint16_t api, kind, teardown;  /* kind, teardown: 0 for invalid frees */
    bool refused;                  /* invalid frees: CUDA refused the free */
    bool twice;                    /* invalid frees: a double free (analysis/bad_frees.h) */
};

/* One snapshot's entry, as the caller collected it. */
struct site_entry {
    struct site_key k;
    size_t snap;
    uint64_t count, bytes;
    uint64_t ptr, time_ns; /* kept for the row from the earliest entry */
};

struct site_row {
    struct site_key k;
    const struct snapcell *cells; /* a: count, b: bytes; the snapshots with the site */
    uint64_t first_ptr;        /* of the earliest snapshot that has the site, */
    uint64_t first_time_ns;    /* its earliest entry */
    uint64_t total, total_bytes; /* summed over the snapshots (saturating) */
    uint64_t change;           /* |last - first| of the measure (below) */
    bool shrank;               /* last < first (different runs) */
    bool varies;               /* the measure differs between snapshots */
    size_t present;            /* snapshots with the site: its cells */
};

struct site_table {
    struct site_row *row; /* diff: varying first, by change; merge: by total */
    size_t n, nchanged;   /* nchanged: rows that vary */
    size_t nsnaps;
    bool by_bytes;        /* the measure: bytes (else the count) */
    struct snapcell *cells; /* every row's, row after row */
    uint64_t *scratch;      /* 2 * nsnaps: one row expanded by site_expand */
};

/* Groups the entries (reordered in place) into rows.  by_bytes: changes and
 * order follow bytes, else counts.  merge: rows by total, else by change.
 * 0, or -1 when out of memory (t is then empty). */
int site_table_build(struct site_entry *e, size_t ne, size_t nsnaps, bool by_bytes, bool merge,
                     struct site_table *t);
void site_table_free(struct site_table *t);
/* The row's count and bytes in every snapshot (0 where it has none), in the
 * table's scratch arrays: valid until the next call. */
void site_expand(const struct site_table *t, const struct site_row *r, const uint64_t **count,
                 const uint64_t **bytes);

#endif
