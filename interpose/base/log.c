#include "base/log.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* write is a cancellation point: the line is written whole, and the
 * thread is not cancelled inside a hook (base/internal.h).  Its own
 * pthread_setcancelstate pair, not gl_nocancel_begin: a line is rare, and
 * this file links alone into the unit tests and fuzz harnesses. */
static void write_all(const char *buf, size_t len)
{
    int cancel_state;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
    while (len > 0) {
        ssize_t n = write(STDERR_FILENO, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; /* stderr closed or full: stay silent, never fail */
        buf += n;
        len -= (size_t)n;
    }
    pthread_setcancelstate(cancel_state, NULL);
}

void gl_warn_once(atomic_bool *once, const char *fmt, ...)
{
    /* Exchange atomically so two threads hitting the same problem print one
     * line between them. */
    if (atomic_exchange(once, true))
        return;
    int saved = errno;
    char line[512];
    int off = snprintf(line, sizeof line, "gpuleak: ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + off, sizeof line - (size_t)off - 1, fmt, ap);
    va_end(ap);
    size_t len = strnlen(line, sizeof line - 2);
    line[len++] = '\n';
    write_all(line, len);
    errno = saved;
}
