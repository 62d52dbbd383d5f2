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

/* Writes the process's final snapshot unless one was written already: at
 * exit, or on a fatal signal (trigger.c). */
void gl_final_snapshot(uint32_t reason);

static inline bool gl_enter(void)
{
    if (gl_hook_depth++ != 0)
        return false;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &gl_cancel_saved);
    return gl_ensure_active();
}

static inline void gl_leave(void)
{
    if (--gl_hook_depth == 0)
        pthread_setcancelstate(gl_cancel_saved, NULL);
}

#endif
