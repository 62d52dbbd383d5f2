/* Whether tracking is on, and in which process (tracking.c): the one fact
 * every part of control/ and the hooks read, kept apart from lifecycle.c
 * (which turns it on and off) so that what reads it does not call back up. */
#ifndef GL_CONTROL_TRACKING_H
#define GL_CONTROL_TRACKING_H

#include <stdatomic.h>
#include <stdbool.h>

/* Tracking was activated and is on (no activation attempted here).  Read
 * by every hook (gl_enter): inline, one load.  Written only
 * through gl_tracking_set_active. */
extern atomic_bool gl_tracking_on;
static inline bool gl_tracking_active(void)
{
    return atomic_load(&gl_tracking_on);
}
void gl_tracking_set_active(bool on);

/* This process is the tracked one: set at activation and in a fork child. */
void gl_tracking_set_process(void);

/* Tracking is on, and in this process: not in a vfork child sharing its
 * memory. */
bool gl_tracking_own_process(void);

#endif
