/* One thread exits at a time while tracking is on (exit_guard.c). */
#ifndef GL_EXIT_GUARD_H
#define GL_EXIT_GUARD_H

#include <stdbool.h>

/* Marks this thread as the one exiting the process: true if it is (first
 * caller, or the same thread again), false if another thread of this
 * process began exiting first.  Called by the exit() hook, and when exit
 * begins without it (main returned): the exit sample and the destructor. */
bool gl_exit_claim(void);
void gl_exit_postfork_child(void);

/* Whether a thread of this process began exiting (a wait for the program's
 * main thread, which will run nothing more, can stop). */
bool gl_exit_begun(void);

#endif
