/* gpuleak-tgkill PID TID SIGNAL: sends SIGNAL (a number) to thread TID of
 * process PID, and to no other thread (tgkill(2)).
 *
 * `gpuleak snapshot` wakes gpuleak's writer thread with it.  A process-directed
 * signal (kill(2), bash's kill, even given a thread's id) is delivered to
 * whichever thread does not block it, usually the program's main thread,
 * whose sleep or read then fails with EINTR.  bash cannot call tgkill, and
 * python3 or perl are not on every machine that runs CUDA jobs, so the
 * launcher carries this much C.  The kernel checks that TID belongs to PID,
 * so a thread id reused by another process is never signalled.
 *
 * Exit status: 0 sent, 1 not sent (one line on stderr says why), 2 usage. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A decimal number in [min, max], nothing else. */
static int parse(const char *s, long min, long max, long *out)
{
    if (*s < '0' || *s > '9')
        return 0;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max)
        return 0;
    *out = v;
    return 1;
}

int main(int argc, char **argv)
{
    long pid, tid, sig;
    if (argc != 4 || !parse(argv[1], 1, INT_MAX, &pid) || !parse(argv[2], 1, INT_MAX, &tid) ||
        !parse(argv[3], 1, SIGRTMAX, &sig)) {
        fprintf(stderr, "usage: gpuleak-tgkill PID TID SIGNAL (numbers)\n");
        return 2;
    }
    if (syscall(SYS_tgkill, (pid_t)pid, (pid_t)tid, (int)sig) != 0) {
        fprintf(stderr, "gpuleak-tgkill: cannot signal thread %ld of process %ld: %s\n", tid, pid,
                strerror(errno));
        return 1;
    }
    return 0;
}
