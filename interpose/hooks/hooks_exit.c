/* exit(), interposed: a second thread's exit() waits while a first one is
 * exiting (the claim and the reasons: base/exit_guard.c).
 *
 * _exit() and _Exit(), interposed: they run no exit handler and no
 * destructor, so the final snapshot is written before they go on
 * (lifecycle.c, gl_final_snapshot_before__exit).  Python's os._exit and a
 * forked child's _exit come here; glibc's own calls (exit's end, a failed
 * posix_spawn) do not, nor does the exit_group system call.
 *
 * quick_exit(), interposed: glibc's reaches its own _exit past this hook,
 * after the at_quick_exit handlers; the last of them to run is gpuleak's
 * (lifecycle.c registers it when tracking starts), which writes the final
 * snapshot as the _exit hook does.  The hook only takes the exit claim, so
 * that a second thread's quick_exit waits as a second exit() does. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/syscall.h>
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

/* The next definition of name after ours (libc's), looked up once; NULL
 * when there is none or it is ours. */
static exit_fn next_exit(exit_fn _Atomic *slot, const char *name)
{
    exit_fn fn = atomic_load_explicit(slot, memory_order_acquire);
    if (fn == NULL) {
        fn = (exit_fn)gl_libc_dlsym(RTLD_NEXT, name);
        atomic_store_explicit(slot, fn, memory_order_release);
    }
    return fn == NULL || gl_is_own_address((uintptr_t)fn) ? NULL : fn;
}

/* What _exit does, without calling a function of that name (ours would be
 * reached again). */
static _Noreturn void end_process(int status)
{
    for (;;)
        syscall(SYS_exit_group, status);
}

GL_EXPORT _Noreturn void exit(int status)
{
    static exit_fn _Atomic real;
    exit_fn fn = next_exit(&real, "exit");
    if (fn == NULL)
        end_process(status); /* cannot happen with a glibc; never loop into ourselves */
    gl_resolve_close_loader();
    if (gl_tracking_active() && !gl_exit_claim())
        wait_for_the_end();
    fn(status);
    end_process(status); /* not reached */
}

/* A thread that ends the process at once: the final snapshot first, unless
 * another thread is exiting already (that one writes it; this one waits
 * for it to end the process, as a second exit() does). */
static void before_quick_exit(void)
{
    if (!gl_tracking_own_process())
        return; /* untracked, or a vfork child: straight on */
    if (!gl_exit_claim())
        wait_for_the_end();
    else
        gl_final_snapshot_before__exit();
}

GL_EXPORT _Noreturn void _exit(int status)
{
    static exit_fn _Atomic real;
    before_quick_exit();
    exit_fn fn = next_exit(&real, "_exit");
    if (fn != NULL)
        fn(status);
    end_process(status);
}

GL_EXPORT _Noreturn void _Exit(int status)
{
    static exit_fn _Atomic real;
    before_quick_exit();
    exit_fn fn = next_exit(&real, "_Exit");
    if (fn != NULL)
        fn(status);
    end_process(status);
}

GL_EXPORT _Noreturn void quick_exit(int status)
{
    static exit_fn _Atomic real;
    exit_fn fn = next_exit(&real, "quick_exit");
    if (fn == NULL)
        end_process(status); /* cannot happen with a glibc; never loop into ourselves */
    if (gl_tracking_own_process() && !gl_exit_claim())
        wait_for_the_end();
    fn(status);
    end_process(status); /* not reached */
}
