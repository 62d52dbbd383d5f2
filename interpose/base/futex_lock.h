/* The slow paths of a release build's lock (base/lock.h; not built with
 * GL_LOCK_CHECK, where a lock is a pthread mutex), out of line: the fast
 * paths are lock.h's inline atomics. */
#ifndef GL_FUTEX_LOCK_H
#define GL_FUTEX_LOCK_H

#include <stdint.h>

struct gl_lock;

/* l was found held: returns holding it. */
void gl_futex_lock_wait(struct gl_lock *l);
/* l was released and a thread may be waiting for it: wakes one. */
void gl_futex_lock_wake(struct gl_lock *l);
/* This thread's identity for a recursive lock while it lives (a
 * thread-local's address: no system call, never 0). */
uintptr_t gl_lock_self(void);

#endif
