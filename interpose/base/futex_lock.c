/* The slow paths of a release build's lock (base/lock.h): a futex word, 0
 * free, 1 held, 2 held and a thread may be waiting (Drepper, "Futexes are
 * tricky", mutex 2).  A waiter marks the word 2 before it sleeps, so the
 * holder's release, which swaps in 0, sees 2 and wakes one; the woken
 * thread takes the lock as 2 again, since others may still wait.  The
 * futex calls are plain system calls: no cancellation point (as with
 * pthread_mutex_lock), EINTR and a changed word only loop. */
#include "base/futex_lock.h"

#include "base/lock.h"

#ifndef GL_LOCK_CHECK

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

void gl_futex_lock_wait(struct gl_lock *l)
{
    while (atomic_exchange_explicit(&l->state, 2, memory_order_acquire) != 0)
        syscall(SYS_futex, &l->state, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
}

void gl_futex_lock_wake(struct gl_lock *l)
{
    syscall(SYS_futex, &l->state, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static GL_TLS char self_marker;

uintptr_t gl_lock_self(void)
{
    return (uintptr_t)&self_marker;
}

#endif
