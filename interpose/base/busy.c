/* The per-thread counts every hook touches (declared in base/internal.h):
 * the hook depth, the busy region and the signal deferred in it, the saved
 * cancellation state.  Apart from self.c so that the loader walk
 * (modules.c), which counts its busy region, uses no file that uses it. */
#include "base/busy.h"

#include <stdatomic.h>

#include "base/internal.h"

GL_TLS int gl_hook_depth;
GL_TLS int gl_busy;
GL_TLS _Atomic int gl_busy_deferred;
GL_TLS int gl_cancel_saved;
GL_TLS int gl_nocancel_depth;

/* Set once, before the handler that defers a signal is installed. */
static void (*_Atomic deferred_run)(int sig);

void gl_busy_on_deferred(void (*run)(int sig)) { atomic_store(&deferred_run, run); }

void gl_busy_deferred_run(void)
{
    int sig = atomic_exchange_explicit(&gl_busy_deferred, 0, memory_order_relaxed);
    void (*run)(int) = atomic_load(&deferred_run);
    if (sig != 0 && run != NULL)
        run(sig);
}

