#include "base/worker.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>

#include "base/internal.h"
#include "base/lock.h"

static sem_t wakeup;
static atomic_bool running;
/* Why the worker was woken, besides its owner's reasons (trigger.c): a job
 * (gl_worker_run_job).  Lock-free atomics: safe in a handler. */
static void (*_Atomic job_pending)(void);
static sem_t job_done;
/* A snapshot asked (gl_worker_ask_snapshot): a lock-free atomic, safe in a
 * handler. */
static atomic_bool snapshot_asked;
static struct gl_lock one_job = GL_LOCK_INIT(JOB); /* one caller at a time */
static GL_TLS bool on_worker;

void gl_worker_deadline(struct timespec *t, uint64_t ms)
{
    clock_gettime(CLOCK_MONOTONIC, t);
    t->tv_sec += (time_t)(ms / 1000);
    t->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (t->tv_nsec >= 1000000000L) {
        t->tv_sec++;
        t->tv_nsec -= 1000000000L;
    }
}

void gl_worker_init(void)
{
    sem_init(&wakeup, 0, 0);
    sem_init(&job_done, 0, 0);
}

void gl_worker_wake(void) { sem_post(&wakeup); }

int gl_worker_wait(const struct timespec *deadline)
{
    return sem_clockwait(&wakeup, CLOCK_MONOTONIC, deadline);
}

void gl_worker_drain(void)
{
    while (sem_trywait(&wakeup) == 0)
        ;
}

/* What the worker did not find with dlsym (a driver function outside the
 * global scope, looked up before the object search) leaves glibc's
 * per-thread dlerror result allocated until the thread's next dl call.  A
 * child forked meanwhile has no worker thread, so the result is memory
 * nothing points to (LeakSanitizer reported it in t_fork).  The worker is
 * ours: no caller of dlerror() to keep it for.  Asked twice: the first
 * delivers the message, the second frees it. */
void gl_worker_drop_dlerror(void)
{
    dlerror();
    dlerror();
}

void gl_worker_run_pending(void)
{
    void (*job)(void) = atomic_exchange(&job_pending, NULL);
    if (job != NULL) {
        job();
        gl_worker_drop_dlerror(); /* before the caller, who may fork next, goes on */
        sem_post(&job_done);
    }
}

void gl_worker_ask_snapshot(void)
{
    atomic_store(&snapshot_asked, true);
    sem_post(&wakeup); /* async-signal-safe */
}

bool gl_worker_snapshot_asked(void) { return atomic_exchange(&snapshot_asked, false); }

void gl_worker_set_running(bool r) { atomic_store(&running, r); }
bool gl_worker_running(void) { return atomic_load(&running); }
void gl_worker_mark_thread(void) { on_worker = true; }
bool gl_worker_on_thread(void) { return on_worker; }

bool gl_worker_run_job(void (*job)(void), unsigned timeout_ms)
{
    if (!atomic_load(&running))
        return false;
    /* sem_clockwait is a cancellation point, and a thread cancelled here
     * would die holding one_job: every later job, the exit sample included,
     * would wait for it forever.  Hooks already run with cancellation off
     * (gl_enter); this caller may also be an exit handler. */
    int cancel_state;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
    gl_lock(&one_job);
    while (sem_trywait(&job_done) == 0) /* left by a job that ran too late */
        ;
    atomic_store(&job_pending, job);
    sem_post(&wakeup);
    struct timespec deadline;
    gl_worker_deadline(&deadline, timeout_ms);
    bool done;
    while (!(done = sem_clockwait(&job_done, CLOCK_MONOTONIC, &deadline) == 0) && errno == EINTR)
        ;
    if (!done) /* not started yet: take it back; started: it finishes unheeded */
        atomic_compare_exchange_strong(&job_pending, &job, NULL);
    gl_unlock(&one_job);
    pthread_setcancelstate(cancel_state, NULL);
    return done;
}

void gl_worker_postfork_child(void)
{
    /* Threads do not survive fork: the child's worker is started again by
     * its owner (trigger.c). */
    atomic_store(&running, false);
    atomic_store(&job_pending, NULL);
    /* A thread of the parent may have been waiting for a job: the lock it
     * held is the child's to take. */
    gl_lock_init(&one_job, GL_LOCK_JOB, 0);
    sem_init(&wakeup, 0, 0);
    sem_init(&job_done, 0, 0);
}
