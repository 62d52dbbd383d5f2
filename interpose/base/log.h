/* Diagnostics.  The host program comes first: gpuleak prints at most one line
 * per distinct problem, prefixed "gpuleak: ", on stderr, and never exits. */
#ifndef GL_LOG_H
#define GL_LOG_H

#include <stdatomic.h>
#include <stdbool.h>

/* One-shot warning keyed by *once: printed the first time only. */
void gl_warn_once(atomic_bool *once, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
