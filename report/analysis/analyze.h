/* Leak grouping and per-device peak composition: pure computations over a
 * parsed snapshot and its canonical stacks (stackdb.h), independent of the
 * output format. */
#ifndef GPULEAK_ANALYZE_H
#define GPULEAK_ANALYZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/snap_read.h"
#include "model/stackdb.h"

struct analyze_opts {
    size_t top;         /* groups shown per list; 0 = all */
    uint64_t min_bytes; /* groups below this are not shown */
    unsigned growth_steps; /* --growth-steps: N of the leak-by-growth rule (analysis/torch_steps.h); 0 = its default */
};

/* Live allocations sharing kind, device, canonical stack, API and the
 * suppression rule their stacks match. */
struct leak_group {
    uint16_t kind, api;
    int32_t device;
    uint32_t cs;       /* canonical stack (stackdb) */
    int32_t rule;      /* suppression rule, -1 none */
    uint32_t stack_id; /* lowest snapshot stack id in the group */
    uint64_t bytes, count;
    /* What the group stands for: bytes and count themselves, or in a sampled
     * snapshot (GPULEAK_MODE=light) the sum over its sampled allocations of
     * what each stands for (sample_weight); 0 for the allocations not
     * sampled (stack 0), which the sampled groups' estimates cover. */
    double est_bytes, est_count;
    uint64_t first_seq, last_seq, first_time_ns, last_time_ns;
};

/* One list of groups, sorted (bytes desc, count desc, stack id asc), of
 * which the first n are shown after --top / --min-bytes. */
struct group_list {
    struct leak_group *g;
    size_t n, total;
    uint64_t bytes, count;               /* all groups of the list */
    uint64_t hidden_bytes, hidden_count; /* groups not shown */
    /* sampled snapshots: the allocations not sampled (stack 0), never a
     * shown group; their bytes are in the estimates of the groups above */
    uint64_t unsampled_bytes, unsampled_count;
    size_t unsampled_groups;
};

struct kind_total {
    uint16_t kind;
    int32_t device;
    uint64_t bytes, count;
};

struct rule_total {
    uint64_t bytes, count;
};

/* PEAK entries regrouped by canonical stack.  est_*: what they stand for
 * (sample_scale; bytes and count themselves in a full snapshot, 0 for the
 * allocations not sampled of a sampled one). */
struct peak_item {
    int32_t device;
    uint32_t cs, stack_id;
    uint64_t bytes, count;
    double est_bytes, est_count;
};

struct device_report {
    const struct snap_device *dev;
    struct peak_item *comp; /* bytes desc */
    size_t ncomp;           /* shown (after --top / --min-bytes) */
    size_t ncomp_total;
    uint64_t comp_bytes_hidden, comp_count_hidden;
    /* sampled snapshots: the allocations at the peak that were not sampled
     * (never a shown item; their bytes are in the estimates above) */
    uint64_t comp_unsampled_bytes, comp_unsampled_count;
    size_t ncomp_unsampled;
};

struct analysis {
    struct group_list leaks;      /* no rule matched */
    struct group_list cached;     /* a built-in allocator-cache rule */
    struct group_list suppressed; /* a rule from --suppressions */
    struct group_list mapped;     /* other processes' memory mapped here (kind ipc)
                                     that no --suppressions rule matched */
    struct group_list modules;    /* loaded modules and libraries (kind module) that no
                                     --suppressions rule matched: not leaks, a context's
                                     end unloads them */
    struct rule_total *rules;     /* by rule index */
    size_t nrules;
    uint64_t total_bytes, total_count; /* every live allocation, mappings too */
    uint64_t allocs_made; /* allocations made over the run, all devices (saturating) */
    uint64_t torn_count;  /* allocations freed only by a context teardown */
    struct kind_total *by_kind; /* kind asc, then device asc */
    size_t nby_kind;
    struct device_report *devs; /* device asc, host (-1) last */
    size_t ndevs;
    size_t orphan_peaks;        /* PEAK entries of a device without counters */
    bool sampled;               /* the snapshot's stacks were sampled: est_* are estimates */
    struct peak_item *peak_buf; /* owned */
    struct leak_group *all;     /* owned storage of the three lists */
};

/* In a snapshot whose stacks were sampled by bytes (s->sampling.mode): a
 * sampled allocation of size bytes was sampled with probability
 * p = 1 - exp(-size/R), so it stands for 1/p allocations and size/p bytes
 * (an unbiased estimate: each allocation of the site is counted with weight
 * 1/p with probability p).  1 and size when nothing was sampled. */
double sample_weight(const struct snapshot *s, uint64_t size);

/* What count sampled allocations of bytes in all, recorded under one stack,
 * stand for: each weighted as one of their average size (Go's
 * scaleHeapSample, runtime/pprof: the records that keep only sums, PEAK and
 * CALLS).  count and bytes themselves when nothing was sampled; 0 for the
 * allocations not sampled (stack_id 0 of a sampled snapshot), which the
 * sampled ones' estimates cover.  The one scaling every sampled figure of
 * a report uses, with sample_weight. */
struct sample_est {
    double count, bytes;
};
struct sample_est sample_scale(const struct snapshot *s, uint32_t stack_id, uint64_t count, uint64_t bytes);
/* The same for sums known to be of sampled allocations (no stack id). */
struct sample_est sample_scale_sums(const struct snapshot *s, uint64_t count, uint64_t bytes);

/* An estimate rounded to an integer, saturating (a hostile file's sizes and
 * sample size can make it exceed what a uint64_t holds). */
static inline uint64_t est_round(double v)
{
    return v >= 18446744073709549568.0 ? UINT64_MAX : v <= 0 ? 0 : (uint64_t)(v + 0.5);
}

/* What a group or peak item is drawn with (flame graphs): its bytes, or
 * in a sampled snapshot its estimate (0 for the allocations not sampled). */
static inline uint64_t shown_bytes(const struct analysis *a, uint64_t bytes, double est_bytes)
{
    return a->sampled ? est_round(est_bytes) : bytes;
}

/* Whether a stack id is the allocations not sampled of a sampled snapshot. */
static inline int stack_unsampled(const struct snapshot *s, uint32_t stack_id)
{
    return s->sampling.mode != 0 && stack_id == 0;
}

static inline int group_unsampled(const struct snapshot *s, const struct leak_group *g)
{
    return stack_unsampled(s, g->stack_id);
}

/* 0 on success, -1 when out of memory.  sup may be NULL. */
int analyze(const struct snapview *v, const struct suppressions *sup,
            const struct analyze_opts *o, struct analysis *out);
void analysis_free(struct analysis *a);

#endif
