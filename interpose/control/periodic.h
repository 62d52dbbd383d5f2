/* Snapshots every GPULEAK_INTERVAL, for jobs that run for days: a series
 * that `gpuleak-report diff` turns into growth per stack.  At most
 * GPULEAK_KEEP of them stay on disk: the first (the baseline every later one
 * is compared with) and the newest.  Written by the writer thread
 * (trigger.c); signal, out-of-memory and exit snapshots are never removed. */
#ifndef GL_PERIODIC_H
#define GL_PERIODIC_H

#include <stdint.h>

#define GL_PERIODIC_DEFAULT_KEEP 10

/* Reads GPULEAK_INTERVAL and GPULEAK_KEEP (one warning each if bad: then no
 * periodic snapshots, or the default number kept).  At activation. */
void gl_periodic_configure(void);

/* Milliseconds until the next periodic snapshot is due (0: due now);
 * UINT64_MAX when periodic snapshots are off. */
uint64_t gl_periodic_wait_ms(void);

/* Writes the snapshot that is due, removes the one that falls out of the
 * kept set, and schedules the next.  Writer thread only. */
void gl_periodic_run(void);

/* fork: the child starts its own series (its own numbers, its own files). */
void gl_periodic_postfork_child(void);

#endif
