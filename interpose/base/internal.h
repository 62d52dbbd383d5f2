/* Declarations shared by the files of libgpuleak.so.  Nothing here is
 * exported: the library is built with -fvisibility=hidden and only the hooks
 * and the public API (gpuleak.h) carry GL_EXPORT. */
#ifndef GL_INTERNAL_H
#define GL_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "base/busy.h"
#include "base/clock.h"
#include "base/self.h"

#define GL_EXPORT __attribute__((visibility("default")))
/* For the few functions that can run before a sanitizer runtime has set up
 * its shadow memory (the dlsym trampoline's path, reached from the ASan/TSan
 * runtime's own initializer in sanitizer builds): no instrumentation.  They
 * also call no libc function.  No effect on normal builds. */
#define GL_NO_SANITIZE __attribute__((no_sanitize("address", "undefined", "thread")))
/* initial-exec: no allocation or lock on first access, so the nesting counter
 * can be touched from any hook, even one called inside malloc or a signal
 * handler.  The library is preloaded, so static TLS is always available. */
#define GL_TLS __thread __attribute__((tls_model("initial-exec")))

/* Nesting depth of hooks on this thread.  The outermost intercepted call is
 * the one that records; anything it calls that is intercepted too (the runtime
 * calling the driver) sees depth > 0 and passes straight through, so one
 * allocation is one record, attributed to the API the program called. */
extern GL_TLS int gl_hook_depth;

/* Thread cancellation inside gpuleak.  A thread the program cancels must
 * not die inside gpuleak holding a lock (exit would hang) or with an
 * allocation made and not recorded.  Disabling cancellation around every
 * hook cost two pthread_setcancelstate calls per hook (~95 instructions a
 * pair, issue 46); instead hooks run with the program's state, and the few
 * places of gpuleak's that reach a cancellation point disable it around
 * themselves: activation (files, the writer thread), stack captures
 * (libunwind may validate addresses through a pipe), the one-line log, the
 * writer's jobs and the snapshot (their own), _exit's wait.  The event's
 * bookkeeping under the lane and shard locks (live table, accounting,
 * history) reaches none, which t_robust_interposer's cancel-pending checks:
 * a thread with a cancellation pending makes every kind of tracked call and
 * must come out of each.  Nested: only the outermost begin and end call
 * pthread_setcancelstate; the state is put back at the end, and a pending
 * cancellation then acts at the program's next cancellation point. */
extern GL_TLS int gl_nocancel_depth;
extern GL_TLS int gl_cancel_saved;

static inline void gl_nocancel_begin(void)
{
    if (gl_nocancel_depth++ == 0)
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &gl_cancel_saved);
}

static inline void gl_nocancel_end(void)
{
    if (--gl_nocancel_depth == 0)
        pthread_setcancelstate(gl_cancel_saved, NULL);
}

/* How many of libgpuleak's locks this thread holds, plus the other places
 * where it may hold a lock a snapshot needs (the loader's, in a stack
 * capture).  A fatal signal's handler asks the writer thread for a snapshot
 * only when this is 0: a thread stopped inside the real CUDA function (0) is
 * not in the writer's way, one stopped holding a lock the writer needs would
 * make it wait for good.  Counted before the lock is taken and after it is
 * released, so a signal in between errs on the side of "busy".  The
 * compiler fences keep the count in order with the locking as the handler,
 * on the same thread, sees it. */
extern GL_TLS int gl_busy;

/* A signal sent from outside (SIGTERM from a scheduler) that landed while
 * this thread was busy: its handler could not wait for the writer (which
 * may need what this thread holds), so it left the signal's number here
 * and returned.  The end of the busy region runs the rest
 * (gl_busy_deferred_run, base/busy.h): the snapshot, then the signal's
 * default action.  Written by the handler on this same thread: an atomic,
 * loaded relaxed (lock-free, so safe in a handler). */
extern GL_TLS _Atomic int gl_busy_deferred;

static inline void gl_busy_enter(void)
{
    gl_busy++;
    atomic_signal_fence(memory_order_seq_cst);
}

/* The region's exit point.  Cheap when nothing was deferred: one relaxed
 * load of a thread-local, when the count reaches 0.  A signal that lands
 * after the count reached 0 sees the thread free and is handled at once. */
static inline void gl_busy_leave(void)
{
    atomic_signal_fence(memory_order_seq_cst);
    if (--gl_busy == 0 &&
        __builtin_expect(atomic_load_explicit(&gl_busy_deferred, memory_order_relaxed) != 0, 0))
        gl_busy_deferred_run();
}

/* gpuleak's monotonic clock (base/clock.h): the TSC where the kernel's own
 * clock is, CLOCK_MONOTONIC otherwise.  Every time recorded comes from it;
 * a deadline handed to the kernel does not (base/worker.c). */
static inline uint64_t gl_mono_ns(void) { return gl_clock_ns(); }

static inline uint64_t gl_unix_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Monotonic time when the library was loaded; event times are relative. */
extern _Atomic uint64_t gl_start_mono_ns;
extern _Atomic uint64_t gl_start_unix_ns;

#endif
