/* exit() called by a second thread while a first one is exiting.
 *
 * glibc (2.36 here) does not serialize exit(): a second caller runs the exit
 * handlers the first has not started yet, at the same time, and the first of
 * the two to reach _exit sets the status.  Without gpuleak the first caller
 * usually gets there long before a second one starts.  gpuleak makes the
 * first caller's exit longer (the exit sample, the final snapshot in the
 * destructor), so a worker's exit(6) a few milliseconds after main's exit(5)
 * found no handler left, went straight to _exit(6), and killed the process
 * in the middle of the snapshot: status 6, no snapshot.
 *
 * So while tracking is on, the first thread to begin exiting owns the exit;
 * any other thread that calls exit() then waits for the process to end,
 * which the first caller's _exit does (Rust's standard library guards its
 * exit the same way, without a bound; ours is 10 s, see below).  The
 * status is the first caller's, the snapshot is written.  The same thread
 * calling exit() again (from an exit handler) passes through, as before.
 * A program that never called CUDA is not touched: exit() goes straight to
 * libc.
 *
 * The claim is kept here, below every layer that exits; the exit() hook that
 * waits is hooks/hooks_exit.c. */
#include <stdatomic.h>
#include <unistd.h>

#include "base/exit_guard.h"
#include "base/internal.h"
#include "base/self.h"

/* pid << 32 | tid of the thread that began exiting; 0: none.  The pid tells
 * a claim of this process from one made in shared memory by a vfork child,
 * or inherited by a fork child. */
static _Atomic uint64_t exiting;

bool gl_exit_claim(void)
{
    uint64_t me = (uint64_t)(uint32_t)getpid() << 32 | gl_gettid();
    uint64_t cur = atomic_load(&exiting);
    for (;;) {
        if (cur == me)
            return true;
        if (cur != 0 && cur >> 32 == me >> 32)
            return false; /* another thread of this process */
        if (atomic_compare_exchange_weak(&exiting, &cur, me))
            return true;
    }
}

void gl_exit_postfork_child(void) { atomic_store(&exiting, 0); }

bool gl_exit_begun(void) { return atomic_load(&exiting) != 0; }
