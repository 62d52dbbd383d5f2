/* exit(), interposed: a second thread's exit() waits while a first one is
 * exiting (the claim and the reasons: base/exit_guard.c). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "base/exit_guard.h"
#include "base/internal.h"
#include "base/libc_dl.h"
#include "base/self.h"
#include "control/lifecycle.h"
#include "resolve/resolve.h"

/* The process ends when the first caller's exit reaches _exit; normally
 * well within the bound.  The bound turns a program whose first exit waits
 * for this very thread (an exit handler joining it) from a hang into a
 * delay: after it, the call goes on as glibc would run it, racing. */
#define SECOND_EXIT_WAIT_MS 10000

static void wait_for_the_end(void)
{
    /* Not cancelled in here (nanosleep is a cancellation point): a thread
     * must not leave exit() by unwinding. */
    int state;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &state);
    struct timespec tick = {0, 10 * 1000 * 1000};
    for (int i = 0; i < SECOND_EXIT_WAIT_MS / 10; i++)
        nanosleep(&tick, NULL);
    pthread_setcancelstate(state, NULL);
}

typedef void (*exit_fn)(int);

GL_EXPORT _Noreturn void exit(int status)
{
    static exit_fn _Atomic real;
    exit_fn fn = atomic_load_explicit(&real, memory_order_acquire);
    if (fn == NULL) {
        fn = (exit_fn)gl_libc_dlsym(RTLD_NEXT, "exit");
        atomic_store_explicit(&real, fn, memory_order_release);
    }
    if (fn == NULL || gl_is_own_address((uintptr_t)fn))
        _exit(status); /* cannot happen with a glibc; never loop into ourselves */
    gl_resolve_close_loader();
    if (gl_tracking_active() && !gl_exit_claim())
        wait_for_the_end();
    fn(status);
    _exit(status); /* not reached */
}
