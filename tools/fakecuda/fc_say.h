/* The one stderr line every fakecuda stub says about itself (the
 * runtime's fc_rt_stub.c, the library stand-ins' fc_lib.c): header-only,
 * because the runtime (shared and static, all hidden) and each stand-in
 * link their own copy. */
#ifndef FC_SAY_H
#define FC_SAY_H

#include <string.h>
#include <unistd.h>

/* Writes "fakecuda: NAME WHAT\n" (WHAT starts with its own separator) the
 * first time *said is seen 0, in one write(2): no stdio lock, a whole line
 * even with threads.  A name too long for the line is cut. */
static inline void fc_say_once(const char *name, int *said, const char *what)
{
    if (__atomic_exchange_n(said, 1, __ATOMIC_RELAXED))
        return;
    char line[256];
    static const char pre[] = "fakecuda: ";
    size_t w = strlen(what);
    if (w > 64)
        w = 64;
    size_t n = strnlen(name, sizeof line - (sizeof pre - 1) - w - 1);
    memcpy(line, pre, sizeof pre - 1);
    memcpy(line + sizeof pre - 1, name, n);
    memcpy(line + sizeof pre - 1 + n, what, w);
    line[sizeof pre - 1 + n + w] = '\n';
    ssize_t r = write(2, line, sizeof pre - 1 + n + w + 1);
    (void)r;
}

#endif
