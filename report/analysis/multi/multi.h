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
#include "analysis/multi/mtable.h"
#include "analysis/multi/teardown_multi.h"
#include "model/stackdb.h"

struct msnap {
    const char *path;
    struct snapshot s;
    struct symbolizer *sy;
    struct snapview v;
};

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

/* Whether two snapshots were written by one process: the same host, pid,
 * start time and rank in their process records.  Only such snapshots share
 * a clock and an address space, so only they make a series (diff). */
bool msnap_same_process(const struct snap_process *a, const struct snap_process *b);
/* Whether m[n-1] may be a repeat that is no step of growth: the exit
 * (final) snapshot of the process that wrote m[n-2], after three or more
 * others.  A row whose bytes there equal those in m[n-2] is then judged
 * over m[0..n-1) (a series ending in the exit snapshot kept its
 * "suspected leak"). */
bool msnap_final_repeat_possible(const struct msnap *m, size_t n);
/* The first snapshot of m[1..n) whose program (model/program.h) is not
 * m[0]'s, or 0 when all ran one program. */
size_t msnap_other_program(const struct msnap *m, size_t n);
/* How many distinct processes wrote m[0..n); first[0..ret) (when not NULL,
 * room for n) gets the index of each one's first snapshot, in order. */
size_t msnap_processes(const struct msnap *m, size_t n, size_t *first);

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
