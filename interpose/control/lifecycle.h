/* Start, fork and exit of the tracked process (lifecycle.c), and the
 * entry and exit of every hook. */
#ifndef GL_CONTROL_LIFECYCLE_H
#define GL_CONTROL_LIFECYCLE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/internal.h"
#include "control/final.h"    /* the final snapshot, for the exit hooks */
#include "control/tracking.h" /* whether tracking is on */

/* Activates tracking on first use (config, process info, handlers).
 * Returns false when tracking is off (GPULEAK_DISABLE, internal failure): the
 * hooks then only pass calls through. */
bool gl_ensure_active(void);

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
