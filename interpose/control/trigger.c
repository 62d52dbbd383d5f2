#include "control/trigger.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/config.h"
#include "base/internal.h"
#include "base/lock.h"
#include "base/log.h"
#include "base/worker.h"
#include "control/fatal.h"
#include "control/watch.h"
#include "control/outfile.h"
#include "control/periodic.h"
#include "control/take.h"
#include "control/torch_steps.h"
#include "snapshot_format.h"
#include <time.h>

/* The writer is base/worker.c's thread: its wake-up channel, job queue
 * and snapshot asks are there (lock-free atomics, safe in a handler), so
 * that layers below this one can hand it work.  It is woken for a snapshot
 * asked (the snapshot signal, or a late PyTorch answer's follow-up:
 * gl_worker_ask_snapshot) or a job (gl_worker_run_job); fatal signals go
 * to the fatal thread (control/fatal.c). */
static atomic_int snapshot_signal; /* set after the writer starts, read by it */
/* Taken by a program thread that starts the writer (the first call after
 * activation or fork). */
static struct gl_lock restart_lock = GL_LOCK_INIT(RESTART);

#define SIGNAL_CHECK_MS 5000 /* how often the writer checks that the signal is still ours */

static void on_signal(int sig)
{
    (void)sig;
    int saved = errno;
    gl_worker_ask_snapshot(); /* async-signal-safe */
    errno = saved;
}

void gl_trigger_check_signal(void)
{
    static atomic_bool warned;
    struct sigaction cur;
    int sig = atomic_load(&snapshot_signal);
    if (sig != 0 && sigaction(sig, NULL, &cur) == 0 &&
        cur.sa_handler != on_signal)
        gl_warn_once(&warned,
                     "the program replaced gpuleak's handler for signal %d; snapshots on signal "
                     "no longer work (choose another signal with GPULEAK_SIGNAL, e.g. USR2)",
                     sig);
}

/* The writer takes the snapshot signal itself while the handler is
 * gpuleak's: `gpuleak snapshot` sends it to this thread alone (tgkill), so no
 * program thread is interrupted (a nanosleep or a read with a timeout would
 * fail with EINTR, SA_RESTART or not).  Once the program has put its own
 * handler in place the writer blocks the signal again: that handler must not
 * run on gpuleak's thread, and `gpuleak snapshot` sees it blocked here and
 * refuses (/proc/PID/task/TID/status SigBlk).  Called on the writer only. */
static void writer_sync_signal_mask(void)
{
    int sig = atomic_load(&snapshot_signal);
    struct sigaction cur;
    if (sig == 0 || sigaction(sig, NULL, &cur) != 0)
        return;
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    pthread_sigmask(cur.sa_handler == on_signal ? SIG_UNBLOCK : SIG_BLOCK, &one, NULL);
}

/* `gpuleak detach` asks the writer to end (gl_trigger_stop); the fatal
 * thread has its own (gl_fatal_set_stop), set with it. */
static atomic_bool writer_stop;

/* Run by the writer at least every TICK_MS (hooks/attach.c's: libraries
 * loaded since the attach get the hooks in their slots). */
static void (*_Atomic writer_tick)(void);
#define TICK_MS 250

void gl_trigger_set_tick(void (*fn)(void))
{
    atomic_store(&writer_tick, fn);
    gl_worker_wake(); /* a wait already begun may be 5 s long */
}

static void *writer_main(void *arg)
{
    (void)arg;
    gl_worker_mark_thread();
    gl_hook_depth = 1; /* CUDA calls made from here are never recorded */
    gl_outfile_pin_cwd();
    for (;;) {
        if (atomic_load(&writer_stop)) {
            gl_worker_set_running(false);
            return NULL;
        }
        gl_worker_drop_dlerror();
        writer_sync_signal_mask();
        /* Wake up now and then to check that the snapshot signal is still
         * ours: a program that installs its own handler later silently
         * takes it over, and `gpuleak snapshot` would then wait in vain.
         * And when a periodic snapshot is due. */
        uint64_t wait_ms = gl_periodic_wait_ms();
        uint64_t live_ms = gl_watch_wait_ms();
        if (live_ms < wait_ms)
            wait_ms = live_ms;
        uint64_t window_ms = gl_torch_steps_window_wait_ms();
        if (window_ms < wait_ms)
            wait_ms = window_ms;
        if (wait_ms > SIGNAL_CHECK_MS)
            wait_ms = SIGNAL_CHECK_MS;
        void (*each)(void) = atomic_load(&writer_tick);
        if (each != NULL && wait_ms > TICK_MS)
            wait_ms = TICK_MS;
        struct timespec deadline;
        gl_worker_deadline(&deadline, wait_ms);
        if (gl_worker_wait(&deadline) != 0) {
            if (errno == EINTR)
                continue;
            if (gl_periodic_wait_ms() == 0)
                gl_periodic_run();
            if (gl_watch_wait_ms() == 0)
                gl_watch_run();
            if (gl_torch_steps_window_wait_ms() == 0)
                gl_torch_steps_window_run();
            if (each != NULL)
                each();
            gl_trigger_check_signal();
            continue;
        }
        /* A burst of signals while we were writing is one request. */
        gl_worker_drain();
        gl_worker_run_pending();
        if (gl_worker_snapshot_asked()) /* the view is collected here, then written */
            gl_take_snapshot(GL_REASON_SIGNAL, 0, NULL, NULL, NULL);
        if (each != NULL)
            each(); /* a detach wakes the writer to ask (hooks/attach_async.c) */
    }
    return NULL;
}

/* Starts gpuleak's threads that are not running (the writer, the fatal
 * thread), every signal blocked in them. */
static void start_threads(void)
{
    sigset_t all, old;
    sigfillset(&all);
    /* The new thread inherits this mask: it never takes the program's
     * signals, so they keep going to the threads that expect them. */
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    pthread_t t;
    if (!gl_worker_running() && pthread_create(&t, &attr, writer_main, NULL) == 0) {
        pthread_setname_np(t, "gpuleak-writer");
        gl_worker_set_running(true);
    }
    if (!gl_fatal_running() && pthread_create(&t, &attr, gl_fatal_main, NULL) == 0) {
        pthread_setname_np(t, "gpuleak-fatal");
        gl_fatal_set_running(true);
    }
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void install_snapshot_signal(int sig);

void gl_trigger_start(void)
{
    static atomic_bool warned_bad;
    const char *env = gl_getenv("GPULEAK_SIGNAL");
    int sig = gl_parse_signal(env);
    if (sig < 0) {
        gl_warn_once(&warned_bad, "ignoring GPULEAK_SIGNAL=%.40s: not a signal name or number; using USR1", env);
        sig = SIGUSR1;
    }
    const char *unusable = gl_signal_unusable(sig);
    if (unusable != NULL) {
        gl_warn_once(&warned_bad, "ignoring GPULEAK_SIGNAL=%.40s: %s; snapshots on signal are off", env,
                     unusable);
        sig = 0;
    }
    /* Once: a second attach finds the writer's channel made, and the
     * writer of the first gone (gl_trigger_stop). */
    static bool channel_made;
    if (!channel_made) {
        gl_worker_init();
        gl_fatal_init();
        channel_made = true;
    }
    /* The settings first, the threads' release after, under restart_lock:
     * a hook's gl_trigger_check starts the writer as soon as it finds the
     * stop flag clear, so the flag cleared before the settings let a writer
     * read them as they were written (TSan: gl_periodic_wait_ms against
     * gl_periodic_configure, t_attach_reset_race, 1 CI run in ~5). */
    gl_periodic_configure();
    gl_watch_configure();
    gl_torch_steps_configure();
    gl_nocancel_begin(); /* not cancelled holding restart_lock */
    gl_lock(&restart_lock);
    atomic_store(&writer_stop, false);
    gl_fatal_set_stop(false);
    start_threads();
    gl_unlock(&restart_lock);
    gl_nocancel_end();
    if (gl_fatal_running())
        gl_fatal_install_handlers();
    if (sig == 0 || !gl_worker_running())
        return;
    install_snapshot_signal(sig);
}

static void install_snapshot_signal(int sig)
{
    static atomic_bool warned_taken;
    struct sigaction old;
    if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN && !(old.sa_flags & SA_SIGINFO)) {
        /* Ignored on purpose (often inherited through exec, e.g. nohup or
         * a supervisor): taking it over would make the program's exec'ed
         * children, which inherit "default" instead, die of it. */
        gl_warn_once(&warned_taken,
                     "the snapshot signal (GPULEAK_SIGNAL=%d) is ignored by this program: left ignored, "
                     "snapshots on signal are off (choose another with GPULEAK_SIGNAL, e.g. USR2)", sig);
        return;
    }
    if (sigaction(sig, NULL, &old) == 0 && old.sa_handler != SIG_DFL) {
        gl_warn_once(&warned_taken,
                     "signal %d already has a handler in this program; snapshots on signal are off "
                     "(choose another with GPULEAK_SIGNAL, e.g. USR2)", sig);
        return;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    if (sigaction(sig, &sa, NULL) == 0) {
        atomic_store(&snapshot_signal, sig);
        gl_worker_wake(); /* the writer unblocks it now (writer_sync_signal_mask) */
    }
}

/* The snapshot signal's handler, if still ours, back to the default, which
 * it replaced (it is installed only over SIG_DFL). */
static void uninstall(int sig)
{
    struct sigaction cur;
    if (sigaction(sig, NULL, &cur) != 0 || (cur.sa_flags & SA_SIGINFO) || cur.sa_handler != on_signal)
        return;
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
}

#define STOP_WAIT_MS 5000

void gl_trigger_stop(void)
{
    int sig = atomic_exchange(&snapshot_signal, 0);
    if (sig != 0)
        uninstall(sig);
    gl_fatal_uninstall();
    /* Under restart_lock: a hook that saw tracking on just before the
     * detach turned it off either started its threads before this (they
     * are waited for below) or sees the stop and starts none; a thread
     * started after the wait would run on into the next attach's setup
     * (TSan: its gl_outfile_pin_cwd against the attach's gl_outfile_setup,
     * t_attach_reset_race, 1 run in 2). */
    gl_nocancel_begin();
    gl_lock(&restart_lock);
    atomic_store(&writer_stop, true);
    gl_fatal_set_stop(true);
    gl_unlock(&restart_lock);
    gl_nocancel_end();
    gl_worker_wake();
    gl_fatal_wake();
    /* Until both have left (a snapshot one is writing is finished first),
     * so that a later attach's threads are the only ones on the channels. */
    struct timespec tick = {0, 1000 * 1000};
    for (int i = 0; i < STOP_WAIT_MS && (gl_worker_running() || gl_fatal_running()); i++)
        nanosleep(&tick, NULL);
}

void gl_trigger_oom(int32_t device, uint64_t mem_free, uint64_t mem_total)
{
    static _Atomic uint64_t last_ns;
    if (!gl_config.oom_snapshot) /* GPULEAK_OOM_SNAPSHOT, read by gl_config_load */
        return;
    uint64_t now = gl_mono_ns();
    uint64_t last = atomic_load(&last_ns);
    if (last != 0 && now - last < gl_config.oom_interval_ms * 1000000u)
        return;
    if (!atomic_compare_exchange_strong(&last_ns, &last, now))
        return; /* another thread is taking this one */
    struct gl_mem_view mem = {device, mem_free, mem_total};
    gl_take_snapshot(GL_REASON_OOM, 0, NULL, mem_total ? &mem : NULL, NULL);
}

void gl_trigger_postfork_child(void)
{
    /* Threads do not survive fork: the child needs its own writer.  It is
     * started by the child's next intercepted call rather than here, since
     * a child that only execs should not pay for a thread (and creating one
     * in an atfork handler is not async-signal-safe).  The handler itself is
     * inherited and stays valid; signals before then are kept by the
     * semaphore. */
    gl_worker_postfork_child();
    gl_fatal_postfork_child();
    /* Another thread of the parent may have been starting the writer: the
     * child's next call must be able to start its own. */
    gl_lock_init(&restart_lock, GL_LOCK_RESTART, 0);
    gl_periodic_postfork_child();
    gl_watch_postfork_child();
}

void gl_trigger_check(void)
{
    if (gl_worker_running() && gl_fatal_running())
        return;
    gl_nocancel_begin(); /* not cancelled holding restart_lock */
    gl_lock(&restart_lock);
    if (!atomic_load(&writer_stop)) /* a detach stopped them: not restarted */
        start_threads();
    gl_unlock(&restart_lock);
    gl_nocancel_end();
}
