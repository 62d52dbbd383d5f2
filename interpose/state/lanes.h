/* Lanes: the per-thread side of the tracking state's locking.
 *
 * Every mutation of the tracking state (track.c) runs inside its thread's
 * lane: the lane's mutex is held for the whole event.  Only its own thread
 * takes it, so on the hot path it is a lock on a cache line no other thread
 * touches.  Whoever needs the whole state at once (a snapshot, a context
 * teardown, fork, an allocation that may set a new peak while other lanes
 * hold credit) enters the exclusive section, which holds every lane: no event
 * is in progress anywhere while it runs.
 *
 * This replaces a process-wide reader-writer lock, whose reader count was one
 * cache line written by every event of every thread (docs/performance.md).
 *
 * A lane also carries its thread's local device accounting (account.h), which
 * the exclusive section may flush on the thread's behalf. */
#ifndef GL_LANES_H
#define GL_LANES_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/lock.h"
#include "state/account.h"
#include "state/events.h"
#include "state/stack_tally.h"

struct gl_lane {
    struct gl_lock lock;
    struct gl_lane *next; /* every lane ever made (never freed) */
    uintptr_t key;        /* its lock's key (base/lock_rank.h): ascending in list order */
    bool in_use;          /* owned by a live thread; under the registry's lock */
    struct gl_lane_acct acct;
    struct gl_stack_tally tally; /* its pending call counts per stack */
    struct gl_lane_events events; /* its events not merged yet (events.h) */
} __attribute__((aligned(64)));

/* The calling thread's lane, locked.  Never fails: a thread that cannot get
 * a lane of its own (no memory), or whose lane was retired because it is
 * exiting, shares a static one. */
struct gl_lane *gl_lane_enter(void);
void gl_lane_leave(struct gl_lane *lane);
/* The lane gl_lane_enter would give this thread, not locked: for a thread
 * inside the exclusive section, which holds it already. */
struct gl_lane *gl_lane_current(void);

/* Holds every lane.  The caller must not be inside its own lane.  Writers
 * queue on one mutex, and a thread entering its lane while a writer waits
 * lets it go first, so a snapshot is never starved by a busy program. */
void gl_exclusive_enter(void);
void gl_exclusive_leave(void);
/* Calls fn on every lane's accounting; only inside the exclusive section. */
void gl_lanes_each(void (*fn)(struct gl_lane_acct *));
/* Calls fn on every lane; only inside the exclusive section. */
void gl_lanes_each_lane(void (*fn)(struct gl_lane *, void *), void *arg);
/* The merger's side (events.h): writer_mutex alone, which orders merges
 * with each other and with exclusive sections; and, with it held, fn on
 * every lane, each locked in turn (the lanes that exist when it starts). */
void gl_writer_lock(void);
void gl_writer_unlock(void);
void gl_lanes_visit(void (*fn)(struct gl_lane *, void *), void *arg);
/* Adds every lane's pending call counts to the stacks; in the exclusive
 * section. */
void gl_lanes_flush_tallies(void);

/* fork: the parent is exclusive across fork(); the child, single-threaded,
 * resets every lock and every lane but its own (which it keeps, cleared). */
void gl_lanes_prefork(void);
void gl_lanes_postfork_parent(void);
void gl_lanes_postfork_child(void);

#endif
