/* The busy region's deferred signal (busy.c); the counts themselves are
 * declared in base/internal.h, which every file includes. */
#ifndef GL_BASE_BUSY_H
#define GL_BASE_BUSY_H

/* At the end of a busy region (gl_busy_leave, base/internal.h) where a
 * signal was deferred: clears gl_busy_deferred and calls the function set
 * with gl_busy_on_deferred with the signal's number (control/fatal.c's:
 * the snapshot, then the signal's default action; it does not return). */
void gl_busy_deferred_run(void);
void gl_busy_on_deferred(void (*run)(int sig));

#endif
