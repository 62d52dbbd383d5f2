/* The live view of a running job, with no snapshot written.
 *
 * Once a second the writer thread (trigger.c) rewrites a small text file,
 * GPULEAK_LIVE_DIR/PID.live (default /dev/shm/gpuleak-UID, a directory of
 * the user's own, mode 0700), with what `gpuleak top PID` shows: each
 * device's live and peak bytes and counters, the live bytes of each
 * allocation site with its stack (return addresses, and Python frames as
 * file:line function), the loaded modules that symbolize it,
 * and the last out-of-memory errors (docs/live.md has the format).  With
 * GPULEAK_METRICS=FILE the same device figures are written to FILE in
 * Prometheus' text format, for node-exporter's textfile collector (FILE expanded as
 * GPULEAK_OUTPUT is, per process, resolved where tracking started).  GPULEAK_LIVE=0
 * turns the live file off.  Both are replaced atomically (write, rename);
 * the live file is removed when the process exits. */
#ifndef GL_WATCH_H
#define GL_WATCH_H

#include <stdint.h>

/* Reads GPULEAK_LIVE, GPULEAK_LIVE_DIR, GPULEAK_METRICS and
 * GPULEAK_METRICS_MODE (one warning each if bad).  At activation. */
void gl_watch_configure(void);

/* Milliseconds until the next update is due (0: now); UINT64_MAX: off. */
uint64_t gl_watch_wait_ms(void);

/* Rewrites the files if due.  Writer thread only. */
void gl_watch_run(void);

/* At exit: removes the live file (the job is over). */
void gl_watch_remove(void);

/* fork: the child has its own pid, so its own live file. */
/* fork waits for a tick in progress (watch.c's tick_lock): prepare, then
 * parent or child. */
void gl_watch_prefork(void);
void gl_watch_postfork_parent(void);
void gl_watch_postfork_child(void);

#endif
