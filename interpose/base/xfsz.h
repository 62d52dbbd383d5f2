/* Writing past RLIMIT_FSIZE raises SIGXFSZ, whose default action kills the
 * process: no file of ours (a snapshot, the live view, the stack check's
 * log) may do that to the host.  The signal is blocked on the writing
 * thread while it writes, and one the write caused is consumed afterwards;
 * the write itself then just fails with EFBIG. */
#ifndef GL_BASE_XFSZ_H
#define GL_BASE_XFSZ_H

#include <signal.h>
#include <stdbool.h>

struct gl_xfsz {
    sigset_t old;
    bool was_pending; /* the host's own SIGXFSZ, pending before: left alone */
};

void gl_xfsz_block(struct gl_xfsz *s);
void gl_xfsz_restore(const struct gl_xfsz *s);

#endif
