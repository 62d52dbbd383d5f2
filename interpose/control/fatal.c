/* The fatal-signal snapshot: the handlers of the fatal signals and the
 * fatal thread that writes their snapshot (fatal.c), apart from the writer
 * thread and the snapshot signal (trigger.c), which starts and stops it. */
#include "control/fatal.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/internal.h"
#include "base/worker.h"
#include "control/final.h"
#include "control/outfile.h"
#include "snapshot_format.h"

/* A fatal signal asks the fatal thread for a final snapshot (fatal_state).
 * DEFERRED: a signal from outside landed while its thread was busy; the
 * fatal thread waits for that region's end and takes nothing that thread
 * may hold meanwhile; after DEFER_MAX_MS a timer (or the fatal thread)
 * ends it.
 *
 * The fatal thread is gpuleak's second thread, apart from the writer, and
 * it does nothing but this (issue 48, item 1): the writer may be inside
 * the driver (a signal snapshot's view of the device) or waiting for
 * Python's main thread, and the dying thread, inside a CUDA call, may hold
 * the driver's lock or be that main thread.  The fatal snapshot itself
 * asks neither: it is made from state gpuleak owns (the driver's view is
 * left out, PyTorch's is the last one kept), and no snapshot holds a lock
 * of ours while it asks (snapshot.c), so nothing it waits for can be held
 * by the thread being terminated. */
enum { FATAL_NONE, FATAL_ASKED, FATAL_DONE /* written, or given up */, FATAL_DEFERRED };
static atomic_int fatal_state;
/* The thread that deferred its signal, and the signal: tid << 32 | sig;
 * 0 until stored (right after fatal_state became DEFERRED). */
static _Atomic uint64_t deferred_who;
static int fatal_signals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
static sem_t fatal_wakeup;          /* posted by a handler: async-signal-safe */
static atomic_bool fatal_running;   /* the fatal thread is started */
static GL_TLS bool on_fatal_thread;
static atomic_bool fatal_stop; /* a detach asks the fatal thread to end */
#define FATAL_WAIT_MS 10000 /* how long a dying thread waits for its snapshot */
#define DEFER_MAX_MS 2000   /* how long a deferred signal waits for its thread's busy region to end */

/* The default action, so the exit status is the same as without gpuleak.
 * In a handler (SA_NODEFER) or at a busy region's end, raise delivers it at
 * once; a fault would also simply recur. */
static void reset_to_default(int sig)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
}

static void die_of(int sig)
{
    reset_to_default(sig);
    raise(sig);
}

/* The bound on a deferred signal is kept by a kernel timer aimed at the
 * deferring thread itself (SIGEV_THREAD_ID, the same signal), not by the
 * writer alone: the writer may itself be blocked behind the lock the busy
 * thread waits for (its live-view tick walking the loader's list while
 * another thread holds the loader's lock), and then the signal waited for
 * that lock, 20 s in t_fatal_snapshot, instead of DEFER_MAX_MS.  Raw
 * system calls: async-signal-safe, no thread, no malloc.  The timer's id
 * + 1, 0 when none is armed. */
static atomic_int defer_timer;

static void arm_defer_timer(int sig)
{
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = sig;
    ev._sigev_un._tid = (pid_t)syscall(SYS_gettid); /* sigev_notify_thread_id: glibc 2.36 names it not */
    int id;
    if (syscall(SYS_timer_create, CLOCK_MONOTONIC, &ev, &id) != 0)
        return; /* the writer still keeps the bound when it is free */
    struct itimerspec when;
    memset(&when, 0, sizeof when);
    when.it_value.tv_sec = DEFER_MAX_MS / 1000;
    when.it_value.tv_nsec = (long)(DEFER_MAX_MS % 1000) * 1000000L;
    atomic_store(&defer_timer, id + 1);
    if (syscall(SYS_timer_settime, id, 0, &when, NULL) != 0) {
        atomic_store(&defer_timer, 0);
        syscall(SYS_timer_delete, id);
    }
}

static void disarm_defer_timer(void)
{
    int armed = atomic_exchange(&defer_timer, 0);
    if (armed != 0)
        syscall(SYS_timer_delete, armed - 1);
}

/* The signal came from our own timer: the deferring thread's region did
 * not end within DEFER_MAX_MS.  No snapshot: the default action now, on
 * this thread, as without deferral.  A timer signal that arrives after
 * the region ended (the timer was deleted with its signal pending) is
 * dropped. */
static bool defer_timer_signal(int sig, const siginfo_t *si)
{
    int armed = atomic_load(&defer_timer);
    if (si == NULL || si->si_code != SI_TIMER || armed == 0 || si->si_timerid != armed - 1)
        return false;
    uint64_t who = atomic_load(&deferred_who);
    int expected = FATAL_DEFERRED;
    if ((pid_t)(who >> 32) == (pid_t)syscall(SYS_gettid) &&
        atomic_compare_exchange_strong(&fatal_state, &expected, FATAL_DONE))
        die_of(sig);
    return true;
}

/* Asks the fatal thread for the final snapshot, unless another thread
 * already has, and waits for it at most FATAL_WAIT_MS.  Only on a thread
 * that holds nothing the snapshot needs (gl_busy == 0).  A signal deferred
 * on another thread is taken over: the snapshot starts now, and that
 * thread, not stopped, frees what it holds.  Async-signal-safe: atomics,
 * sem_post, nanosleep. */
static void snapshot_and_wait(void)
{
    int s = atomic_load(&fatal_state);
    while ((s == FATAL_NONE || s == FATAL_DEFERRED) &&
           !atomic_compare_exchange_weak(&fatal_state, &s, FATAL_ASKED))
        ;
    sem_post(&fatal_wakeup);
    struct timespec tick = {0, 10 * 1000 * 1000};
    for (int i = 0; i < FATAL_WAIT_MS / 10 && atomic_load(&fatal_state) != FATAL_DONE; i++)
        nanosleep(&tick, NULL);
}

/* A signal that does not come from the interrupted code itself, so that
 * code can go on to the end of its busy region: a termination request
 * (nothing gpuleak runs raises TERM, INT, HUP or QUIT: another process, the
 * terminal or another thread sent it), or any fatal signal another process
 * sent (kill, sigqueue, tgkill).  A fault or this process's abort() is
 * never deferred: its thread cannot go on. */
static bool from_outside(int sig, const siginfo_t *si)
{
    if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT)
        return true;
    return si != NULL && (si->si_code == SI_USER || si->si_code == SI_QUEUE || si->si_code == SI_TKILL) &&
           si->si_pid != getpid();
}

/* This thread is busy: it may hold what the snapshot needs, so it must
 * not wait here.  The signal waits for the region's end instead
 * (gl_busy_leave runs run_deferred), and the fatal thread is woken to keep
 * the time.  False when the snapshot is already done: the default action now. */
static bool defer(int sig)
{
    if (atomic_load_explicit(&gl_busy_deferred, memory_order_relaxed) != 0)
        return true; /* this thread already dies at the region's end */
    int expected = FATAL_NONE;
    if (atomic_compare_exchange_strong(&fatal_state, &expected, FATAL_DEFERRED)) {
        atomic_store(&deferred_who, (uint64_t)syscall(SYS_gettid) << 32 | (uint32_t)sig);
        arm_defer_timer(sig);
        sem_post(&fatal_wakeup);
    } else if (expected == FATAL_DONE) {
        return false;
    }
    /* ASKED or DEFERRED by another thread: that one waits; this one joins
     * at its region's end. */
    atomic_store_explicit(&gl_busy_deferred, sig, memory_order_relaxed);
    return true;
}

/* The end of the busy region where sig was deferred: no lock of ours held
 * now.  The snapshot, then the default action, as on_fatal does. */
static void run_deferred(int sig)
{
    int saved = errno;
    disarm_defer_timer();
    snapshot_and_wait();
    die_of(sig);
    errno = saved; /* only if sig is blocked here: then it acts when unblocked */
}

/* A fatal signal: the program is about to die with it.  The handler cannot
 * write a snapshot itself (the thread may have been stopped inside malloc or
 * holding a lock), so it hands the work to the fatal thread, waits a bounded
 * time, then lets the signal take its default action, so the exit status is
 * the same as without gpuleak.
 *
 * A thread that may hold something the writer needs (gl_busy: one of our
 * locks, the loader's in a walk or a stack capture) cannot wait: the writer
 * would wait for it.  A signal from outside (a scheduler's SIGTERM) is then
 * deferred to the end of that region (defer), a few microseconds away; a
 * fault there takes its default action at once, without a snapshot.  A
 * thread inside an intercepted CUDA call is not busy while it waits inside
 * the real function (on a GPU, cudaFree waits for the device), even while
 * it holds the driver's lock there: the fatal snapshot never asks the
 * driver, and never waits for the writer, which may.  gpuleak's threads
 * block every signal; a fault on one of them takes its default action at
 * once (the writer may hold snap_lock, the fatal thread is the one to
 * wait for). */
static void on_fatal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    int saved = errno;
    if (defer_timer_signal(sig, si)) {
        errno = saved;
        return;
    }
    if (!gl_worker_on_thread() && !on_fatal_thread && atomic_load(&fatal_running)) {
        if (gl_busy == 0) {
            snapshot_and_wait();
        } else if (from_outside(sig, si) && defer(sig)) {
            errno = saved;
            return;
        }
    }
    die_of(sig);
    errno = saved;
}

/* On the fatal thread, while a signal is deferred: waits for its thread's
 * region to end (run_deferred asks for the snapshot and wakes it), taking
 * nothing that thread may hold, so the limit holds.  When DEFER_MAX_MS
 * pass first (the thread waits for something while it holds a lock of
 * ours), no snapshot: the signal's default action is taken now, on that
 * thread, as without deferral. */
static void wait_for_region_end(void)
{
    uint64_t give_up = gl_mono_ns() + (uint64_t)DEFER_MAX_MS * 1000000u;
    while (atomic_load(&fatal_state) == FATAL_DEFERRED) {
        uint64_t now = gl_mono_ns();
        uint64_t who = atomic_load(&deferred_who);
        if (now >= give_up && who != 0) {
            int expected = FATAL_DEFERRED;
            if (!atomic_compare_exchange_strong(&fatal_state, &expected, FATAL_DONE))
                return; /* the region ended just now */
            int sig = (int)(who & 0xffffffffu);
            reset_to_default(sig);
            if (syscall(SYS_tgkill, getpid(), (pid_t)(who >> 32), sig) != 0)
                kill(getpid(), sig);
            return;
        }
        struct timespec deadline;
        gl_worker_deadline(&deadline, now >= give_up ? 1 : (give_up - now) / 1000000u + 1);
        sem_clockwait(&fatal_wakeup, CLOCK_MONOTONIC, &deadline);
    }
}

/* On the fatal thread: the fatal signal's business.  True if there was
 * some. */
static bool take_fatal_request(void)
{
    switch (atomic_load(&fatal_state)) {
    case FATAL_ASKED:
        gl_final_snapshot(GL_REASON_FATAL_SIGNAL);
        atomic_store(&fatal_state, FATAL_DONE);
        return true;
    case FATAL_DEFERRED:
        wait_for_region_end();
        return true;
    default:
        return false;
    }
}

void gl_fatal_install_handlers(void)
{
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
        struct sigaction old;
        /* Only where the program has no handler of its own: a program that
         * handles SIGINT (Python does) exits through its normal path, and
         * the exit snapshot covers it. */
        if (sigaction(fatal_signals[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL ||
            (old.sa_flags & SA_SIGINFO))
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_fatal;
        sigemptyset(&sa.sa_mask);
        /* SA_SIGINFO: who sent it (from_outside).  SA_ONSTACK: a stack
         * overflow can only be handled on the alternate stack the program
         * installed (none: the kernel kills it, as without gpuleak).  The
         * handler needs little of it (atomics, sem_post, nanosleep,
         * sigaction, raise); the snapshot is written on the writer thread's
         * own stack.  The termination requests keep the handler while the
         * snapshot is written: the same signal again (the launcher passes a
         * TERM on to the command that the whole process group got too)
         * joins the wait instead of killing at once.  die_of resets it. */
        int sig = fatal_signals[i];
        bool request = sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT;
        sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK | (request ? 0 : SA_RESETHAND);
        sigaction(fatal_signals[i], &sa, NULL);
    }
}


/* The fatal thread: waits for a fatal signal's request (or the stop of a
 * detach) and does nothing else, so that nothing the writer waits for can
 * delay the final snapshot. */
void *gl_fatal_main(void *arg)
{
    (void)arg;
    on_fatal_thread = true;
    gl_hook_depth = 1; /* as on the writer: nothing it calls is recorded */
    gl_outfile_pin_cwd(); /* relative names point where the writer's do */
    for (;;) {
        if (atomic_load(&fatal_stop)) {
            atomic_store(&fatal_running, false);
            return NULL;
        }
        if (take_fatal_request())
            continue;
        while (sem_wait(&fatal_wakeup) != 0 && errno == EINTR)
            ;
        while (sem_trywait(&fatal_wakeup) == 0) /* a burst is one wake-up */
            ;
    }
    return NULL;
}


void gl_fatal_init(void)
{
    sem_init(&fatal_wakeup, 0, 0);
    gl_busy_on_deferred(run_deferred);
}

bool gl_fatal_running(void) { return atomic_load(&fatal_running); }
void gl_fatal_set_running(bool running) { atomic_store(&fatal_running, running); }
void gl_fatal_set_stop(bool stop) { atomic_store(&fatal_stop, stop); }
void gl_fatal_wake(void) { sem_post(&fatal_wakeup); }

void gl_fatal_uninstall(void)
{
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
        struct sigaction cur;
        if (sigaction(fatal_signals[i], NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
            cur.sa_sigaction == on_fatal)
            reset_to_default(fatal_signals[i]);
    }
}

void gl_fatal_postfork_child(void)
{
    atomic_store(&fatal_running, false);
    sem_init(&fatal_wakeup, 0, 0);
    /* A signal deferred by the forking thread (inside the prepare handler's
     * locks) is the parent's: it was not sent to the child (lifecycle.c
     * clears this thread's gl_busy_deferred first of all). */
    atomic_store(&fatal_state, FATAL_NONE);
    atomic_store(&deferred_who, 0);
    atomic_store(&defer_timer, 0); /* POSIX timers are not inherited */
}
