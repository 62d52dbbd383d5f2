/* This library and this thread (self.c).  The start times and the
 * per-thread counts it defines are declared in base/internal.h, which every
 * file includes. */
#ifndef GL_BASE_SELF_H
#define GL_BASE_SELF_H

#include <stdbool.h>
#include <stdint.h>

/* The calling thread's kernel id (cached; right after fork too). */
uint32_t gl_gettid(void);

/* True if addr lies inside libgpuleak.so's own mapped segments. */
bool gl_is_own_address(uintptr_t addr);

/* Sets what the constructor sets (start times, own address range) if it has
 * not run yet: activation can come first, from another library's
 * constructor.  Cheap when it has. */
void gl_self_init(void);

/* At the end of a busy region (gl_busy_leave, base/internal.h) where a
 * signal was deferred: clears gl_busy_deferred and calls the function set
 * with gl_busy_on_deferred with the signal's number (control/trigger.c's:
 * the snapshot, then the signal's default action; it does not return). */
void gl_busy_deferred_run(void);
void gl_busy_on_deferred(void (*run)(int sig));

#endif
