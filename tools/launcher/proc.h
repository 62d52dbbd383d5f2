/* Processes the launcher looks at through /proc. */
#ifndef GL_LAUNCHER_PROC_H
#define GL_LAUNCHER_PROC_H

#include <stdbool.h>
#include <stddef.h>

/* The whole of a /proc file (NUL bytes kept; its length in *len when len
 * is not NULL), or NULL. */
char *read_proc(const char *path, size_t *len);

/* /proc/PID/cmdline with the NUL after each argument made a space (so
 * strstr sees the words as a shell typed them), or NULL. */
char *proc_cmdline(const char *pid);

/* Whether /proc/PID/maps (pid as typed) names libgpuleak.so. */
bool has_gpuleak_loaded(const char *pid);

/* The process of `pid` (as typed, digits) that has libgpuleak.so loaded:
 * pid itself, or, for the pid of "gpuleak run" (what $! gives), its one
 * child, the command.  Dies naming `what` when there is none. */
char *tracked_pid(const char *what, const char *pid);

/* /proc/PID/stat's field 22, the process's start time, or NULL. */
char *start_time(const char *pid);

/* The target's environment variable name: the settings gpuleak attach
 * gave it first (its record, when the record's start time is the
 * process's), then /proc/PID/environ; NULL when it is not set. */
char *target_env(const char *pid, const char *name);

/* The rank the target's library reads for %r (env.c's rank_value over the
 * same variables), "0" when none is set. */
char *target_rank(const char *pid);

/* The host name the target's library writes for %h, or "" when it cannot
 * be known from here (another UTS namespace). */
char *target_host(const char *pid);

/* Whether signal sig is in the mask on line "key:" of the status file
 * (SigCgt caught, SigIgn ignored, SigBlk blocked); false when unreadable. */
bool in_sigmask(const char *status_path, const char *key, int sig);

/* The id of gpuleak's writer thread in pid (its comm "gpuleak-writer"),
 * or NULL when there is none. */
char *writer_tid(const char *pid);

#endif
