/* gpuleak's own thread, as the layers below control/ see it: a wake-up
 * channel and a one-slot job queue (worker.c).  The thread itself (when it
 * starts, what it does when woken: snapshots on signal, periodic ones, the
 * fatal-signal snapshot) is control/trigger.c's; it runs the queued job with
 * gl_worker_run_pending.  Lower layers hand work to it with
 * gl_worker_run_job, without knowing what else it does. */
#ifndef GL_BASE_WORKER_H
#define GL_BASE_WORKER_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC now + ms. */
void gl_worker_deadline(struct timespec *t, uint64_t ms);

/* The wake-up channel and job queue, set up when tracking activates. */
void gl_worker_init(void);
/* Wakes the thread.  Async-signal-safe (sem_post): signal handlers call it. */
void gl_worker_wake(void);
/* On the thread: waits for a wake-up until deadline (0, or -1 with errno:
 * ETIMEDOUT, EINTR), then takes a burst of wake-ups as one. */
int gl_worker_wait(const struct timespec *deadline);
void gl_worker_drain(void);
/* On the thread: runs the job asked for, if any, and tells its caller. */
void gl_worker_run_pending(void);
/* Frees this thread's pending dlerror result (see worker.c).  Worker only. */
void gl_worker_drop_dlerror(void);

/* The thread is running (set by whoever starts it). */
void gl_worker_set_running(bool running);
bool gl_worker_running(void);
/* Marks the calling thread as the worker; true on it. */
void gl_worker_mark_thread(void);
bool gl_worker_on_thread(void);

/* Asks the worker for a snapshot (one of its owner's signal snapshots,
 * control/trigger.c) without waiting: the snapshot signal's handler, and a
 * late PyTorch answer that a signal snapshot went without (its follow-up,
 * control/torch_view.c), so that no layer calls the writer's loop.
 * Async-signal-safe.  A burst of asks is one snapshot. */
void gl_worker_ask_snapshot(void);
/* On the thread: whether a snapshot was asked since the last call. */
bool gl_worker_snapshot_asked(void);

/* Runs job on the worker thread and waits for it at most timeout_ms: for
 * work the calling thread must not do itself (it may be inside a CUDA
 * callback, or the work may block in the driver).  True if the job ran to
 * its end in time; false if there is no worker or it took too long -- then
 * the job may still run or finish later, and must check for itself whether
 * its result is still wanted. */
bool gl_worker_run_job(void (*job)(void), unsigned timeout_ms);

/* Fork child: no thread, no job, locks and semaphores new. */
void gl_worker_postfork_child(void);

#endif
