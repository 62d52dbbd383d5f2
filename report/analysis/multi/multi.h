/* Analyses over several snapshots: diff (what grows between snapshots of
 * one process, or of two runs) and merge (the ranks of one job).  Stacks are
 * matched across snapshots through one shared stackdb (see stackdb.h). */
#ifndef GPULEAK_MULTI_H
#define GPULEAK_MULTI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/analyze.h"
#include "analysis/multi/bad_frees_multi.h"
#include "analysis/multi/diff_devices.h"
#include "analysis/multi/leaks_merge.h"
#include "analysis/multi/msnap.h"
#include "analysis/multi/mtable.h"
#include "analysis/multi/teardown_multi.h"
#include "model/stackdb.h"

/* Allocations of the last snapshot made after the first one was taken. */
struct newgroup {
    uint32_t cs;
    uint16_t kind;
    int32_t device, rule;
    uint64_t bytes, count, first_time_ns, last_time_ns;
};

struct diff_result {
    struct mtable t;     /* rows: shown first nshown after sorting */
    bool same_process;   /* first and last: same pid and start time */
    bool same_program;   /* every snapshot ran the first's program (model/program.h) */
    struct newgroup *fresh;
    size_t nfresh, nfresh_shown;
    uint64_t fresh_bytes, fresh_count;
    struct free_table frees; /* invalid frees per site and snapshot */
    struct torn_table torn;  /* memory freed only by a context teardown */
    struct diff_devices devs; /* live and peak per device and snapshot */
};

struct merge_snap {
    uint64_t live_bytes, live_count, leaked_bytes, leaked_count;
    uint64_t peak_bytes; /* the largest device peak */
    int32_t peak_device;
    uint64_t peak_time_ns;
};

struct merge_result {
    struct merge_snap *snaps;
    struct mtable t; /* rows present in only some snapshots, shown first */
    size_t largest;  /* snapshot with the largest peak */
    struct free_table frees;
    struct torn_table torn;
    struct leak_sites leaks; /* leaks by site across the ranks */
};

int diff_build(struct msnap *m, size_t n, const struct analyze_opts *o,
               struct diff_result *out);
void diff_free(struct diff_result *d);
int merge_build(struct msnap *m, size_t n, const struct analyze_opts *o,
                struct merge_result *out);
void merge_free(struct merge_result *r);

/* Per-host and per-(host, device) totals, computed on the fly: few rows. */
struct merge_agg {
    const char *host;
    int32_t device; /* -2 for a host total */
    uint64_t live, peak_sum, peak_max;
    size_t snaps;
    char ranks[256];
};
#define MERGE_MAX_AGG 1024

/* The rows of out[0..max) for m[0..n): one per host (by_dev false) or per
 * (host, device); rows beyond max are dropped.  Returns their number. */
size_t merge_aggregate(struct msnap *m, size_t n, struct merge_agg *out, size_t max, bool by_dev);

#endif
