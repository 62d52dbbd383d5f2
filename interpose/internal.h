/* Declarations shared by the files of libgpuleak.so.  Nothing here is
 * exported: the library is built with -fvisibility=hidden and only the hooks
 * and the public API (gpuleak.h) carry GL_EXPORT. */
#ifndef GL_INTERNAL_H
#define GL_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

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

/* Activates tracking on first use (config, process info, handlers).
 * Returns false when tracking is off (GPULEAK_DISABLE, internal failure): the
 * hooks then only pass calls through. */
bool gl_ensure_active(void);

/* The outermost hook runs with cancellation disabled.  A thread the
 * program cancels must not die inside gpuleak: libunwind reads a pipe while
 * unwinding (a cancellation point), and gpuleak waits for its writer thread
 * and takes locks, so a thread cancelled there would leave a lock held (exit
 * would hang) or an allocation made and never recorded.  The state is put
 * back when the hook returns; a pending cancellation then acts at the
 * program's next cancellation point, as if the CUDA call had not been one. */
extern GL_TLS int gl_cancel_saved;

static inline bool gl_enter(void)
{
    if (gl_hook_depth++ != 0)
        return false;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &gl_cancel_saved);
    return gl_ensure_active();
}

static inline void gl_leave(void)
{
    if (--gl_hook_depth == 0)
        pthread_setcancelstate(gl_cancel_saved, NULL);
}

static inline uint64_t gl_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t gl_unix_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Monotonic time when the library was loaded; event times are relative. */
extern uint64_t gl_start_mono_ns;
extern uint64_t gl_start_unix_ns;

uint32_t gl_gettid(void);

/* True if addr lies inside libgpuleak.so's own mapped segments. */
bool gl_is_own_address(uintptr_t addr);

#endif
