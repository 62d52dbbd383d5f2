/* Start, fork and exit of the tracked process (lifecycle.c), and the
 * entry and exit of every hook. */
#ifndef GL_CONTROL_LIFECYCLE_H
#define GL_CONTROL_LIFECYCLE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/internal.h"

/* Activates tracking on first use (config, process info, handlers).
 * Returns false when tracking is off (GPULEAK_DISABLE, internal failure): the
 * hooks then only pass calls through. */
bool gl_ensure_active(void);

/* Tracking was activated and is on (no activation attempted here). */
bool gl_tracking_active(void);

/* Starts tracking for an attach (again, after a detach, with the settings
 * gl_config_set_overrides gave); -1 when tracking is on already or could
 * not start. */
int gl_lifecycle_attach(void);

/* The detach: a snapshot (reason detach) if asked, then tracking off -- every hook
 * passes its call through --, the signals back to their defaults, the
 * writer thread and the live file gone. */
void gl_lifecycle_detach(bool snapshot);

/* The file the last detach wrote; "" if none. */
const char *gl_detach_snapshot(void);

/* Writes the process's final snapshot unless one was written already: at
 * exit, or on a fatal signal (trigger.c). */
void gl_final_snapshot(uint32_t reason);

/* Tracking is on, and in this process: not in a vfork child sharing its
 * memory. */
bool gl_lifecycle_own_process(void);

/* _exit or _Exit, called by the program (hooks/hooks_exit.c): no exit
 * handler or destructor will run, so the final snapshot is written now, by
 * the writer thread within a bound (or by this thread when there is none),
 * unless this thread is inside a region of gpuleak's (a signal handler). */
void gl_final_snapshot_before__exit(void);

/* An exec is about to replace this image (hooks/hooks_exec.c): its last
 * snapshot, reason exec and not final (the exec may fail), is written as
 * _exit's is, and the launcher's mark names it (pending.h).  Nothing in a
 * process that made no tracked call since fork (a child about to run
 * another program), in a vfork child, or inside a region of gpuleak's. */
void gl_snapshot_before_exec(void);

/* The exec returned: it failed, the image goes on and owes its final
 * snapshot again (the exec snapshot stays, one of its series). */
void gl_exec_failed(void);

/* Hooks run with the program's cancellation state: only gpuleak's own
 * cancellation points are made with it disabled (gl_nocancel_begin,
 * base/internal.h); docs/reliability.md. */
static inline bool gl_enter(void)
{
    if (gl_hook_depth++ != 0)
        return false;
    return gl_ensure_active();
}

static inline void gl_leave(void)
{
    --gl_hook_depth;
}

#endif
