/* What the history (EVENTS records: a ring of the most recent allocs, frees,
 * OOMs, snapshots and annotations, oldest first) tells: memory over time per
 * device, the highest point of each kind, the annotation in force at each
 * device's peak and the allocations that led up to it. */
#ifndef GPULEAK_HISTORY_H
#define GPULEAK_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/snap_read.h"
#include "snapshot_format.h"

/* Per-kind arrays: one slot per gl_kind plus one for kinds this reader does
 * not know (a newer writer). */
#define GL_KIND_SLOTS (GL_KIND_COUNT + 1)

#define HIST_NCLASS 65 /* size classes: 0, then [2^(k-1), 2^k) for k=1..64 */
#define HIST_BEFORE 8  /* allocations shown before a peak */

/* A point of interest on the time axis: annotation, OOM or snapshot. */
struct hist_mark {
    uint64_t seq, time_ns;
    uint16_t type; /* GL_EV_* */
    int32_t device;
    uint32_t label_id;
    const struct snap_label *label; /* annotations; NULL if unknown id */
    uint64_t index; /* snapshot marks: the snapshot's number (PROCESS index) */
    /* out-of-memory marks: what was asked for, where, and the driver's view */
    uint64_t size, mem_free, mem_total;
    uint32_t stack_id;
    uint16_t kind, api;   /* of the failed call */
    uint64_t live_bytes;  /* the device's live allocations then (mappings aside) */
    /* the first later allocation of the same size, kind and device (as a
     * caching allocator's retry after freeing its cache); then_seq 0: none */
    uint64_t then_seq, then_time_ns;
    uint32_t then_stack_id;
};

struct hist_dev {
    int32_t device;
    uint64_t *time_ns, *bytes; /* live bytes after each alloc/free event */
    size_t n, cap;
    uint64_t base;             /* live bytes when the history starts */
    uint64_t max_bytes, max_time_ns, max_seq; /* highest point in the window */
    bool has_kind[GL_KIND_SLOTS];
    uint64_t kind_max[GL_KIND_SLOTS], kind_max_time_ns[GL_KIND_SLOTS]; /* by gl_kind; the last slot: unknown kinds */
    /* the device's peak (DEVICES.peak_seq) seen in the history */
    bool peak_covered;
    size_t peak_event;       /* index into snapshot.events */
    long peak_mark;          /* last annotation at or before the peak, -1 none */
    bool peak_mark_known;    /* the history reaches back far enough to say */
    size_t before[HIST_BEFORE]; /* alloc events up to the peak, oldest first */
    size_t nbefore;
    uint64_t req_count[HIST_NCLASS], req_bytes[HIST_NCLASS]; /* requests */
    uint64_t nreq;
};

struct history {
    bool present;                /* the snapshot has events */
    uint64_t first_seq, last_seq;
    uint64_t t0, t1;             /* first event, snapshot time (or last event) */
    struct hist_dev *dev;        /* device asc, host last */
    size_t ndev;
    struct hist_mark *marks;     /* in history order */
    size_t nmarks;
    size_t nalloc, nfree;
    bool inconsistent;           /* frees of more than was live: base raised */
    size_t dropped_devices;      /* beyond the tracked limit */
};

int history_build(const struct snapshot *s, struct history *h);
void history_free(struct history *h);

/* Size class of a byte count (see HIST_NCLASS) and its bounds. */
/* Index of a device in h->dev, or -1. */
long hist_dev_index(const struct history *h, int32_t device);
unsigned hist_size_class(uint64_t size);
uint64_t hist_size_class_low(unsigned k);

/* Last annotation at or before seq, or -1; *known false when the history
 * starts after seq (an earlier annotation may have been dropped). */
long history_mark_before(const struct history *h, uint64_t seq, bool *known);

#endif
