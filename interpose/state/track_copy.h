/* Consistent copies of the live table, the per-device counters, the
 * history and the stacks' calls, taken in the exclusive section (lanes.h)
 * that excludes every mutation at once: the snapshot's whole copy, the live
 * view's figures, and the table's shape for its unit test (track_copy.c). */
#ifndef GL_TRACK_COPY_H
#define GL_TRACK_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "state/history.h"
#include "state/stack_table.h"
#include "state/track.h"

/* A snapshot's copy of the state (control/snapshot.c). */
struct gl_alloc_copy {
    uint64_t ptr, size, seq, time_ns, stream;
    uint32_t stack_id;
    int32_t device;
    uint16_t kind, api;
};

struct gl_device_copy {
    int32_t device;
    uint64_t live_bytes, live_count, peak_bytes, peak_seq, peak_time_ns;
    uint64_t alloc_count, free_count, alloc_bytes_total, failed_count, unknown_free_count;
};

struct gl_peak_copy {
    int32_t device;
    uint32_t stack_id;
    uint64_t bytes, count;
};

/* One stack's allocation calls (stack_table.h), read with the rest. */
struct gl_calls_copy {
    uint32_t stack_id;
    uint16_t api;
    uint8_t kind;
    uint64_t allocs, frees, bytes;
};

struct gl_state_copy {
    struct gl_alloc_copy *allocs;
    size_t nallocs;
    struct gl_device_copy devices[GL_MAX_DEVICES + 1];
    size_t ndevices;
    struct gl_peak_copy *peaks;
    size_t npeaks;
    struct gl_event *events; /* history, oldest first */
    size_t nevents;
    struct gl_stack *stacks; /* newest first, walk ->older */
    uint32_t nstacks;
    struct gl_calls_copy *calls; /* the stacks with allocations, newest first */
    size_t ncalls;
};

/* Fills *out; returns false if memory ran out (out is then empty). */
bool gl_track_copy(struct gl_state_copy *out);
void gl_state_copy_free(struct gl_state_copy *c);

/* The live view's figures (live.c), far cheaper than gl_track_copy: every
 * device's totals, the live bytes of each (device, stack) site, and the last
 * out-of-memory errors.  No allocation or history is copied. */
struct gl_watch_site {
    const struct gl_stack *stack; /* NULL: no stack captured */
    int32_t device;
    uint64_t bytes, count;
};

#define GL_WATCH_OOMS 8
struct gl_watch_oom {
    uint64_t time_ns, size;
    int32_t device;
    const struct gl_stack *stack;
};

struct gl_watch_copy {
    struct gl_device_copy devices[GL_MAX_DEVICES + 1];
    size_t ndevices;
    struct gl_watch_site *sites; /* those with live bytes */
    size_t nsites;
    bool sites_truncated;       /* more sites than room */
    struct gl_watch_oom ooms[GL_WATCH_OOMS]; /* oldest first */
    size_t nooms;
    uint64_t oom_total;
};

/* Fills *out (sites malloc'd: free them); false if memory ran out. */
bool gl_track_watch_copy(struct gl_watch_copy *out);

/* The live table's shape, for its unit test (tests/unit/live_table.c):
 * records in it, record slots carved from slabs so far (live or waiting on a
 * free list for reuse), buckets, and the longest bucket chain. */
struct gl_track_shape {
    size_t records, slots, buckets, longest_chain;
};
void gl_track_shape(struct gl_track_shape *out);

#endif
