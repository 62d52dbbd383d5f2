#include "control/final.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "base/exit_guard.h"
#include "base/internal.h"
#include "base/worker.h"
#include "control/pending.h"
#include "control/take.h"
#include "control/tracking.h"
#include "control/watch.h"
#include "snapshot_format.h"

static atomic_bool final_done;

void gl_final_rearm(void) { atomic_store(&final_done, false); }

void gl_final_snapshot(uint32_t reason)
{
    if (!gl_tracking_active() || atomic_exchange(&final_done, true))
        return;
    /* 4 KiB, not on the stack: a fatal signal's snapshot runs on the
     * writer, an _exit's maybe on a thread with little stack left. */
    struct gl_snapshot_file *written = malloc(sizeof *written);
    gl_hook_depth++; /* anything CUDA we trigger from here is not recorded */
    if (written != NULL && gl_take_snapshot(reason, GL_SNAP_F_FINAL, NULL, NULL, written) == 0)
        gl_pending_final(written->path);
    else if (written != NULL)
        gl_pending_final(NULL);
    else
        gl_take_snapshot(reason, GL_SNAP_F_FINAL, NULL, NULL, NULL); /* the mark stays empty: unknown */
    gl_hook_depth--;
    free(written);
}

/* The longest _exit waits for the writer thread's final snapshot: the
 * bound on a program that calls _exit from a signal handler that stopped
 * its thread where the writer must wait for it (inside malloc, say). */
#define QUICK_EXIT_WAIT_MS 10000

static void final_snapshot_job(void)
{
    gl_final_snapshot(GL_REASON_EXIT);
    gl_watch_remove();
}

static void exec_snapshot_job(void)
{
    struct gl_snapshot_file *written = malloc(sizeof *written); /* 4 KiB: not on the stack */
    gl_hook_depth++; /* anything CUDA we trigger from here is not recorded */
    if (written != NULL && gl_take_snapshot(GL_REASON_EXEC, 0, NULL, NULL, written) == 0)
        gl_pending_exec(written->path);
    gl_hook_depth--;
    free(written);
}

void gl_snapshot_before_exec(void)
{
    if (!gl_tracking_own_process() || !gl_pending_process_called() || gl_busy != 0)
        return;
    gl_nocancel_begin(); /* the marks are made whole or not at all */
    /* On the writer, bounded, as _exit's: exec is async-signal-safe, and a
     * handler may call it having stopped its thread anywhere. */
    if (gl_worker_on_thread() || !gl_worker_run_job(exec_snapshot_job, QUICK_EXIT_WAIT_MS)) {
        if (!gl_worker_running() || gl_worker_on_thread())
            exec_snapshot_job();
    }
    gl_nocancel_end();
}

void gl_exec_failed(void)
{
    if (!gl_tracking_own_process())
        return;
    gl_nocancel_begin();
    gl_pending_exec_failed();
    gl_nocancel_end();
}

void gl_final_snapshot_before__exit(void)
{
    /* gl_busy: a signal handler calling _exit interrupted this thread in
     * a region of ours; the writer would wait for what it holds. */
    if (!gl_tracking_own_process() || atomic_load(&final_done) || gl_busy != 0)
        return;
    /* On the writer, bounded: the caller may be a signal handler that
     * stopped its thread anywhere, and _exit must still end the process. */
    if (!gl_worker_on_thread() && gl_worker_run_job(final_snapshot_job, QUICK_EXIT_WAIT_MS))
        return;
    /* No writer (a forked child before its first CUDA call): this thread,
     * the only one a fork child has, writes it. */
    if (!gl_worker_running() || gl_worker_on_thread())
        final_snapshot_job();
}

/* quick_exit ran the program's at_quick_exit handlers (those registered
 * after tracking started) and no atexit one nor the destructor will run;
 * the quick_exit hook (hooks_exit.c) took the exit claim. */
void gl_final_at_quick_exit(void)
{
    gl_final_snapshot_before__exit();
}

