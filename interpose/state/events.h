/* Per-thread event rings, merged in stamp order (issue 46).
 *
 * An event (allocation, free, out-of-memory, mark) is first appended to its
 * thread's lane (lanes.h): a buffer only that thread writes, under the lane
 * it already holds, so recording an event writes nothing another thread
 * touches.  Instead of a process-wide sequence number, each event carries a
 * *stamp* read from a clock: for an event on a live record, under its
 * shard's lock, made strictly increasing per shard (so one address's events
 * stay in order: the stale record's FREE before the ALLOC that replaced it,
 * a FREE on another thread after the ALLOC it ends) and per thread.  The
 * stamp is the tick (ns since load) shifted left by 6, with the shard in the
 * low bits: unique among record events.
 *
 * The merger numbers the events: it collects what the lanes hold, sorts it
 * by stamp and gives each event the next global sequence number, the one the
 * snapshot format has always had (dense, shared by ALLOCS, EVENTS and
 * DEVICES.peak_seq); then it writes them to the history ring (history.h).
 * An allocation's record carries its stamp (GL_SEQ_STAMP set) until the
 * merger numbers its ALLOC event and gives the record the number too; the
 * device that peaked at it likewise.  It runs
 *   - in the exclusive section (a snapshot, fork, detach): every lane held,
 *     so it takes every event;
 *   - from a thread whose lane is three-quarters full, after it leaves its
 *     lane: it holds writer_mutex (one merge or exclusive section at a
 *     time) and visits the lanes one at a time, taking only events whose
 *     tick is below a cutoff: the clock at its start, less the most two
 *     threads' reads may disagree by (GL_CLOCK_SKEW_NS, base/clock.h).
 *     Every later event has a
 *     tick at or above the cutoff, and every earlier one was complete in its
 *     lane before the merger could lock that lane; so each merge takes
 *     whole prefixes of time and the numbering is the same as if one merge
 *     had seen everything. */
#ifndef GL_EVENTS_H
#define GL_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gl_event;
struct gl_live;

/* An ALLOC event's record and what the merger numbered its event: the
 * record (state/track.h) takes the number if it is still that allocation's. */
struct gl_numbered {
    struct gl_live *rec;
    uint64_t stamp, number;
};
/* Gives each of n records its number; tmp: room for n entries.  Passed in
 * by the live table (gl_track_number_records), so that the merger, below
 * it, never calls into it. */
typedef void gl_events_number_fn(struct gl_numbered *nr, size_t n, struct gl_numbered *tmp);

#define GL_LANE_EVENTS 1024   /* a lane holds this many unmerged events (64 KiB) */
#define GL_LANE_MERGE_AT 768  /* and asks for a merge at this many */
#define GL_SEQ_STAMP (UINT64_C(1) << 63) /* a record's seq is still its stamp */
#define GL_STAMP_SHARD_BITS 6
#define GL_STAMP_MARK_SHARD 63 /* events on no record (OOM, marks) share a slot */

/* One lane's unmerged events; zero is empty.  Under the lane's lock. */
struct gl_lane_events {
    struct gl_event *buf; /* GL_LANE_EVENTS, malloc'd at the lane's first event */
    uint32_t count;
    uint32_t lost; /* events that found the buffer full or unallocated */
};

static inline uint64_t gl_stamp(uint64_t tick, unsigned shard) { return tick << GL_STAMP_SHARD_BITS | shard; }
static inline uint64_t gl_stamp_tick(uint64_t stamp) { return stamp >> GL_STAMP_SHARD_BITS; }

/* Appends e (e->seq: its stamp) in the caller's lane; true when the lane
 * wants a merge (call gl_events_merge once out of the lane). */
bool gl_lane_event_add(struct gl_lane_events *le, const struct gl_event *e);
/* The same in two steps, for an event written where it is kept: the slot
 * for the lane's next event, or NULL (the event is lost, and counted: then
 * gl_lane_event_lost_wants_merge says whether a merge is due); and, once the
 * slot is written, its commit, true when the lane wants a merge.  Merging
 * stays on the thread: see docs/performance.md, "Merged on the writer:
 * measured, and undone". */
struct gl_event *gl_lane_event_slot(struct gl_lane_events *le);
bool gl_lane_event_commit(struct gl_lane_events *le);
bool gl_lane_event_lost_wants_merge(const struct gl_lane_events *le);

/* Holds nothing of the tracking state (may hold graph_lock, ipc_lock).
 * number: the live table's, for the records of the ALLOC events merged. */
void gl_events_merge(gl_events_number_fn *number);
/* In the exclusive section: merges every lane's events.  Returns once the
 * clock has passed the last tick merged, so that every later event sorts
 * after them. */
void gl_events_merge_held(gl_events_number_fn *number);
/* The last sequence number given (0: none); in the exclusive section. */
uint64_t gl_events_last_number(void);
/* Detach, in the exclusive section: unmerged events are dropped and the
 * history forgets everything numbered so far. */
void gl_events_forget(void);
/* fork child (single-threaded): the lanes' events were the parent's. */
void gl_events_postfork_child(void);

#endif
