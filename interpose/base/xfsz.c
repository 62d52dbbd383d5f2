#include "base/xfsz.h"

#include <pthread.h>
#include <time.h>

static void only_xfsz(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGXFSZ);
}

void gl_xfsz_block(struct gl_xfsz *s)
{
    sigset_t xfsz, pending;
    only_xfsz(&xfsz);
    pthread_sigmask(SIG_BLOCK, &xfsz, &s->old);
    s->was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGXFSZ);
}

void gl_xfsz_restore(const struct gl_xfsz *s)
{
    sigset_t xfsz, pending;
    only_xfsz(&xfsz);
    if (!s->was_pending && sigpending(&pending) == 0 && sigismember(&pending, SIGXFSZ)) {
        struct timespec zero = {0, 0};
        sigtimedwait(&xfsz, NULL, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &s->old, NULL);
}
