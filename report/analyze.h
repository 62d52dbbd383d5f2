/* Leak grouping and per-device peak composition: pure computations over a
 * parsed snapshot, independent of symbolization and output format. */
#ifndef GPULEAK_ANALYZE_H
#define GPULEAK_ANALYZE_H

#include <stddef.h>
#include <stdint.h>

#include "snap_read.h"

struct analyze_opts {
    size_t top;         /* groups shown per list; 0 = all */
    uint64_t min_bytes; /* groups below this are not shown */
};

/* Live allocations sharing kind, device, stack and API. */
struct leak_group {
    uint16_t kind, api;
    int32_t device;
    uint32_t stack_id;
    uint64_t bytes, count;
    uint64_t first_seq, last_seq, first_time_ns, last_time_ns;
};

struct kind_total {
    uint16_t kind;
    int32_t device;
    uint64_t bytes, count;
};

struct device_report {
    const struct snap_device *dev;
    struct snap_peak *comp; /* this device's PEAK entries, bytes desc */
    size_t ncomp;           /* shown (after --top / --min-bytes) */
    size_t ncomp_total;
    uint64_t comp_bytes_hidden, comp_count_hidden;
};

struct analysis {
    struct leak_group *groups; /* shown groups, sorted */
    size_t ngroups;
    size_t ngroups_total;      /* before --top / --min-bytes */
    uint64_t hidden_bytes, hidden_count;
    uint64_t total_bytes, total_count; /* every live allocation */
    struct kind_total *by_kind; /* kind asc, then device asc */
    size_t nby_kind;
    struct device_report *devs; /* device asc, host (-1) last */
    size_t ndevs;
    size_t orphan_peaks;        /* PEAK entries of a device without counters */
    struct snap_peak *peak_buf; /* sorted copy of all PEAK entries (owned) */
};

/* 0 on success, -1 when out of memory. */
int analyze(const struct snapshot *s, const struct analyze_opts *o,
            struct analysis *out);
void analysis_free(struct analysis *a);

#endif
