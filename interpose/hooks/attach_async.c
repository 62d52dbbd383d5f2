/* The entry points gdb calls for `gpuleak attach` and `gpuleak detach`.
 *
 * gdb runs a call on whichever thread it stopped, wherever that thread
 * was: inside the CUDA driver holding its lock, inside one of gpuleak's
 * own hooks holding ours, inside the loader.  gpuleak_attach_begin/end do
 * what an attach and a detach need (the driver asked for its memory and
 * its function addresses, the loader's list walked, a snapshot written),
 * and on such a thread they wait for a lock that thread holds itself:
 * fakecuda's driver lock, in a tight allocation loop, hung the process for
 * good.  So the call gdb makes only copies its arguments and starts a
 * thread of ours that does the work once gdb has let the program go on;
 * that thread writes the outcome into a file the launcher named, which
 * the launcher waits for.  Nothing here locks or calls CUDA. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/internal.h"
#include "base/worker.h"
#include "control/lifecycle.h"
#include "gpuleak.h"
#include "hooks/attach.h"

#define ARG_MAX_BYTES 4096

/* One attach or detach start at a time, held by the process it was made
 * in: `job_owner` is that process's id, 0 when none.  fork copies it into a
 * child, where no thread of ours runs that job: a child's start finds its
 * parent's id there and takes it.  The arguments live here, not on the
 * heap (the stopped thread may be inside malloc). */
static _Atomic pid_t job_owner;
static char job_config[ARG_MAX_BYTES];
static char job_status[ARG_MAX_BYTES];
static bool job_is_attach;

static bool copy_arg(char *dst, const char *src)
{
    if (src == NULL) {
        dst[0] = '\0';
        return true;
    }
    size_t n = strnlen(src, ARG_MAX_BYTES);
    if (n == ARG_MAX_BYTES)
        return false;
    memcpy(dst, src, n + 1);
    return true;
}

/* "RC SNAPSHOT\n" into a new file at path, mode 0600, never through a
 * symlink or over a file there: the launcher made the directory, and reads
 * the file once its newline is there. */
static void write_status(const char *path, int rc, const char *snapshot)
{
    char line[ARG_MAX_BYTES + 32];
    int n = snprintf(line, sizeof line, "%d %s\n", rc, snapshot ? snapshot : "");
    if (n < 0 || (size_t)n >= sizeof line)
        n = snprintf(line, sizeof line, "%d\n", rc);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    const char *p = line;
    while (n > 0) {
        ssize_t w = write(fd, p, (size_t)n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        p += w;
        n -= (int)w;
    }
    close(fd);
}

static void *run_job(void *arg)
{
    (void)arg;
    int rc;
    const char *snapshot = NULL;
    if (job_is_attach) {
        rc = gl_attach_begin(job_config);
    } else {
        rc = gl_attach_end();
        if (rc == GPULEAK_ATTACH_OK)
            snapshot = gl_detach_snapshot();
    }
    write_status(job_status, rc, snapshot);
    atomic_store(&job_owner, 0);
    return NULL;
}

/* Runs the job on a detached thread that takes no signal (the program's
 * signals go to its own threads, as before the attach).  0, or -1. */
static int spawn_job(void)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t attr;
    pthread_t t;
    int rc = pthread_attr_init(&attr);
    if (rc == 0) {
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        rc = pthread_create(&t, &attr, run_job, NULL);
        pthread_attr_destroy(&attr);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc == 0 ? 0 : -1;
}

/* Takes `job_owner` and copies the arguments: GPULEAK_ATTACH_OK, or
 * (nothing taken) GPULEAK_ATTACH_BUSY when another start of this process
 * runs, GPULEAK_ATTACH_BAD_CONFIG when an argument is missing or too long.
 * Each its own answer, so that the launcher names the cause: the loser of
 * two attaches at once was told "could not start its attach thread".
 * (getpid is a system call, no lock: safe on the thread gdb stopped.) */
static int take_job(bool attach, const char *config, const char *status)
{
    if (status == NULL)
        return GPULEAK_ATTACH_BAD_CONFIG;
    pid_t self = getpid();
    pid_t owner = atomic_load(&job_owner);
    do {
        if (owner == self)
            return GPULEAK_ATTACH_BUSY;
    } while (!atomic_compare_exchange_weak(&job_owner, &owner, self));
    if (!copy_arg(job_config, config) || !copy_arg(job_status, status)) {
        atomic_store(&job_owner, 0);
        return GPULEAK_ATTACH_BAD_CONFIG;
    }
    job_is_attach = attach;
    return GPULEAK_ATTACH_OK;
}

GL_EXPORT int gpuleak_attach_start(const char *config, const char *status)
{
    int rc = take_job(true, config, status);
    if (rc != GPULEAK_ATTACH_OK)
        return rc;
    if (spawn_job() != 0) {
        atomic_store(&job_owner, 0);
        return -1;
    }
    return 0;
}

/* An attached process has gpuleak's writer thread, which ticks every
 * ~250 ms and when woken (detach_poll): the detach only says
 * so, with atomics, and wakes it (sem_post: an atomic and a futex wake).
 * The call gdb makes then takes no lock at all -- not even pthread_create's
 * or malloc's, which a thread gdb stopped inside fork or malloc holds (a
 * job that forks CUDA children: gdb's call in dlopen and pthread_create
 * waited there until gdb gave up after 60 s).  (gdb itself calls the
 * process's malloc for the string argument first: the launcher lets the
 * thread leave malloc, the loader and fork before that, gdb_safe_point.)
 *
 * The request names the process it was made to, as `job_owner` does: a
 * child forked before the writer's tick has a copy of it, and its writer
 * -- started by the child's first CUDA call, and ticking at once, its live
 * view due -- detached the child, wrote the child's snapshot (its tables
 * emptied by fork: call counts, no device counters, no history) and
 * claimed the launcher's status file before the parent (O_EXCL: the first
 * one wins), so `gpuleak detach` printed the child's snapshot. */
static _Atomic pid_t detach_wanted; /* the process asked to detach; 0: none */
static void detach_poll(void);

GL_EXPORT int gpuleak_detach_start(const char *status)
{
    if (gl_attach_slots() < 0)
        return GPULEAK_ATTACH_NOT_ATTACHED;
    int rc = take_job(false, NULL, status);
    if (rc != GPULEAK_ATTACH_OK)
        return rc;
    gl_attach_on_tick(detach_poll); /* an attach made through gpuleak_attach_begin has no poll yet */
    atomic_store(&detach_wanted, getpid());
    gl_worker_wake(); /* sem_post: no lock; the writer asks now, not at its tick */
    return 0;
}

static void detach_poll(void)
{
    pid_t wanted = atomic_exchange(&detach_wanted, 0);
    if (wanted == 0 || wanted != getpid())
        return; /* none, or the parent's, copied by fork: not this process's */
    if (spawn_job() != 0) { /* no thread: said so (-1), not "busy" */
        write_status(job_status, -1, NULL);
        atomic_store(&job_owner, 0);
    }
}
