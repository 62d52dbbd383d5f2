/* Fatal signals (fatal.c): their handlers hand the final snapshot to the
 * fatal thread, gpuleak's second thread, which does nothing else, wait a
 * bounded time, then let the signal take its default action (the exit
 * status is the same as without gpuleak).  A signal from outside that lands
 * in a busy region of ours is deferred to its end.  Started, stopped and
 * restarted by control/trigger.c with the writer. */
#ifndef GL_CONTROL_FATAL_H
#define GL_CONTROL_FATAL_H

#include <stdbool.h>

/* Once, before the first start: the wake-up channel, and the busy region's
 * deferred signal handed to this file (base/busy.h). */
void gl_fatal_init(void);

/* The fatal thread's body, for pthread_create (every signal blocked). */
void *gl_fatal_main(void *arg);
/* Whether it is running (set by whoever starts it, cleared when it ends). */
bool gl_fatal_running(void);
void gl_fatal_set_running(bool running);
/* A detach asks it to end (true), a start lets it run (false); then
 * gl_fatal_wake. */
void gl_fatal_set_stop(bool stop);
void gl_fatal_wake(void);

/* The handlers, only over SIG_DFL (a program's own handler is left: its
 * normal exit path is covered by the exit snapshot); and back to SIG_DFL
 * where still ours. */
void gl_fatal_install_handlers(void);
void gl_fatal_uninstall(void);

/* fork: no thread, no request, no deferred signal in the child. */
void gl_fatal_postfork_child(void);

#endif
