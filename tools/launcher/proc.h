/* Processes the launcher looks at through /proc. */
#ifndef GL_LAUNCHER_PROC_H
#define GL_LAUNCHER_PROC_H

#include <stdbool.h>

/* Whether /proc/PID/maps (pid as typed) names libgpuleak.so. */
bool has_gpuleak_loaded(const char *pid);

/* The process of `pid` (as typed, digits) that has libgpuleak.so loaded:
 * pid itself, or, for the pid of "gpuleak run" (what $! gives), its one
 * child, the command.  Dies naming `what` when there is none. */
char *tracked_pid(const char *what, const char *pid);

#endif
