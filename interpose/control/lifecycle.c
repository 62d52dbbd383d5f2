/* Start, fork and exit of the tracked process.
 *
 * Loading the library does almost nothing (it records the start time): a
 * process that never calls CUDA behaves exactly as without it, writes no file
 * and gets no handlers.  Tracking is activated by the first intercepted call;
 * the final snapshot is written by the library destructor, which runs after
 * the program's atexit handlers, so memory those handlers free is not reported
 * as leaked.  quick_exit() runs neither: its snapshot is written by the
 * at_quick_exit handler registered at activation, the last handler to run
 * but for those registered before it.  _exit() and _Exit() skip both: their hooks (hooks/hooks_exit.c)
 * have it written first (gl_final_snapshot_before__exit).  The exit_group
 * system call and SIGKILL run nothing of ours (an exec's hooks write the
 * image's last snapshot, reason exec: hooks/hooks_exec.c): the mark the process
 * made at its first CUDA call (control/pending.c), which the final snapshot
 * replaces, tells the launcher it was not judged. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/config.h"
#include "base/exit_guard.h"
#include "base/internal.h"
#include "base/lock.h"
#include "base/log.h"
#include "base/modules.h"
#include "base/self.h"
#include "base/worker.h"
#include "capture/pyframes.h"
#include "capture/stack_cache.h"
#include "control/lifecycle.h"
#include "control/watch.h"
#include "control/outfile.h"
#include "control/pending.h"
#include "control/snapshot.h"
#include "control/torch_view.h"
#include "control/trigger.h"
#include "cuda/driver_view.h"
#include "cuda/graph.h"
#include "cuda/ipc.h"
#include "cuda/pool_kinds.h"
#include "cuda/pools.h"
#include "cuda/vmm.h"
#include "cuda/where.h"
#include "gpuleak.h"
#include "resolve/resolve.h"
#include "snapshot_format.h"
#include "state/bad_free.h"
#include "state/history.h"
#include "state/teardown.h"
#include "state/track.h"
#include "state/track_reset.h"

static pthread_once_t activate_once = PTHREAD_ONCE_INIT;
static atomic_bool active;      /* tracking on */
static atomic_bool activated;   /* activation ran (whatever its outcome) */
static atomic_bool final_done;
/* The process tracking is on in: a vfork child (or a clone without fork
 * handlers) shares our memory, flags included, but is not it. */
static _Atomic pid_t tracked_pid;

/* A live-view tick first (it takes the exclusive section and the loader
 * walk inside it), the stack cache's recording walk next (nothing is taken
 * inside it), then the loader walk: a writer thread collecting modules holds it and never
 * enters the exclusive section inside it, and what fork copies must not be
 * in mid-walk (modules.c). */
static void prefork(void)
{
    gl_watch_prefork();
    gl_stack_cache_prefork();
    gl_loader_walk_prefork();
    gl_track_prefork();
}

static void postfork_parent(void)
{
    gl_track_postfork_parent();
    gl_loader_walk_postfork_parent();
    gl_stack_cache_postfork_parent();
    gl_watch_postfork_parent();
}

static void postfork_child(void)
{
    /* A signal deferred inside the prepare handler's locks was sent to the
     * parent: no lock released below may act on it in the child. */
    atomic_store_explicit(&gl_busy_deferred, 0, memory_order_relaxed);
    gl_stack_cache_postfork_child();
    gl_loader_walk_postfork_child();
    gl_resolve_postfork_child();
    gl_pools_postfork_child();
    gl_track_postfork_child();
    gl_snapshot_postfork_child();
    gl_trigger_postfork_child();
    gl_vmm_postfork_child();
    gl_pool_kinds_postfork_child();
    gl_driver_view_postfork_child();
    gl_graph_postfork_child();
    gl_ipc_postfork_child();
    gl_py_postfork_child();
    gl_bad_free_postfork_child();
    gl_teardown_postfork_child();
    gl_exit_postfork_child();
    gl_torch_postfork_child();
    gl_where_devices_forget_all(); /* the child's CUDA state is not the parent's */
    gl_pending_postfork_child();
    atomic_store(&tracked_pid, getpid());
    atomic_store(&final_done, false);
    /* The prepare handler's locks were re-initialized, not released: the
     * child's one thread holds none of ours. */
    gl_busy = 0;
    gl_lock_check_none_held(", not re-made by fork's child handlers");
}

static void final_snapshot_at_quick_exit(void);

static void activate(void)
{
    gl_config_load();
    gl_self_init();
    if (gl_config.disabled) {
        atomic_store(&activated, true);
        return;
    }
    gl_procinfo_init();
    gl_outfile_setup(gl_config.output);
    gl_pending_configure();
    gl_track_configure_history((size_t)gl_config.max_entries);
    atomic_store(&tracked_pid, getpid());
    pthread_atfork(prefork, postfork_parent, postfork_child);
    /* Registered first of the handlers registered from now on, it runs
     * after them: what they free is not reported as leaked. */
    at_quick_exit(final_snapshot_at_quick_exit);
    gl_trigger_start();
    gl_py_detect();
    atomic_store(&active, true);
    atomic_store(&activated, true);
}

bool gl_tracking_active(void) { return atomic_load(&active); }

/* ---- attach and detach (docs/attach.md) -------------------------------- */

static char detach_snapshot[4096]; /* the detach's snapshot file, for gpuleak detach to print */

const char *gl_detach_snapshot(void) { return detach_snapshot; }

/* After a detach: what this attach recorded is dropped, so that the next
 * attach starts from zero, as heaptrack -p and memray attach do
 * (docs/attach.md "Detach").  Hooks handed out during the attach may still
 * run, and one may be in flight: each table is emptied under the locks its
 * readers and writers take (track.c); its memory is kept for reuse (freed,
 * it would leave holes in the program's heap), the interned stacks too. */
static void release_tracking_state(void)
{
    gl_track_reset();
    gl_teardown_reset();
    gl_bad_free_reset();
    gl_vmm_reset();
}

int gl_lifecycle_attach(void)
{
    if (atomic_load(&activated) && atomic_load(&active))
        return -1; /* tracking already (preloaded, or attached and not detached) */
    gl_graph_capture_begun(); /* a capture may have begun before the attach */
    gl_where_devices_forget_all(); /* devices set before the hooks were there */
    if (!atomic_load(&activated)) {
        pthread_once(&activate_once, activate);
    } else if (!gl_config.disabled) {
        /* Attached again after a detach: the settings of this attach. */
        gl_config_load();
        gl_outfile_setup(gl_config.output);
        gl_pending_configure();
        if (gl_history_capacity() != (size_t)gl_config.max_entries) /* this attach's size */
            gl_track_configure_history((size_t)gl_config.max_entries);
        atomic_store(&final_done, false);
        gl_trigger_start();
        atomic_store(&active, true);
    }
    return atomic_load(&active) ? 0 : -1;
}

void gl_lifecycle_detach(bool snapshot)
{
    if (!atomic_load(&active))
        return;
    if (snapshot) {
        struct gl_snapshot_file *written = malloc(sizeof *written);
        gl_hook_depth++;
        detach_snapshot[0] = '\0';
        if (written != NULL && gl_snapshot_write_file(GL_REASON_DETACH, 0, NULL, written) == 0 &&
            strlen(written->path) < sizeof detach_snapshot)
            memcpy(detach_snapshot, written->path, strlen(written->path) + 1);
        gl_hook_depth--;
        free(written);
    }
    /* From here every hook passes its call straight through (gl_enter). */
    atomic_store(&active, false);
    gl_pending_remove(); /* no final snapshot is owed now */
    gl_trigger_stop();
    gl_watch_remove();
    release_tracking_state();
}

bool gl_ensure_active(void)
{
    if (!atomic_load_explicit(&activated, memory_order_acquire)) {
        gl_nocancel_begin(); /* reads files, starts the writer thread */
        pthread_once(&activate_once, activate);
        gl_nocancel_end();
    }
    if (!atomic_load_explicit(&active, memory_order_relaxed))
        return false;
    gl_pending_mark(); /* once per process: an atomic load after the first */
    gl_trigger_check();
    return true;
}

void gl_final_snapshot(uint32_t reason)
{
    if (!atomic_load(&active) || atomic_exchange(&final_done, true))
        return;
    /* 4 KiB, not on the stack: a fatal signal's snapshot runs on the
     * writer, an _exit's maybe on a thread with little stack left. */
    struct gl_snapshot_file *written = malloc(sizeof *written);
    gl_hook_depth++; /* anything CUDA we trigger from here is not recorded */
    if (written != NULL && gl_snapshot_write_file(reason, GL_SNAP_F_FINAL, NULL, written) == 0)
        gl_pending_final(written->path);
    else if (written != NULL)
        gl_pending_final(NULL);
    else
        gl_snapshot_write(reason, GL_SNAP_F_FINAL, NULL); /* the mark stays empty: unknown */
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
    if (written != NULL && gl_snapshot_write_file(GL_REASON_EXEC, 0, NULL, written) == 0)
        gl_pending_exec(written->path);
    gl_hook_depth--;
    free(written);
}

void gl_snapshot_before_exec(void)
{
    if (!gl_lifecycle_own_process() || !gl_pending_process_called() || gl_busy != 0)
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
    if (!gl_lifecycle_own_process())
        return;
    gl_nocancel_begin();
    gl_pending_exec_failed();
    gl_nocancel_end();
}

bool gl_lifecycle_own_process(void)
{
    return atomic_load(&active) && atomic_load(&tracked_pid) == getpid();
}

void gl_final_snapshot_before__exit(void)
{
    /* gl_busy: a signal handler calling _exit interrupted this thread in
     * a region of ours; the writer would wait for what it holds. */
    if (!gl_lifecycle_own_process() || atomic_load(&final_done) || gl_busy != 0)
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
static void final_snapshot_at_quick_exit(void)
{
    gl_final_snapshot_before__exit();
}

__attribute__((destructor)) static void gl_on_unload(void)
{
    gl_resolve_close_loader();
    /* main returned (libc's own call to exit is not hooked): from here a
     * second thread's exit() waits (exit_guard.c). */
    if (atomic_load(&active))
        gl_exit_claim();
    if (atomic_load(&active))
        gl_trigger_check_signal();
    gl_final_snapshot(GL_REASON_EXIT);
    gl_watch_remove();
}

/* ---- public API (gpuleak.h) -------------------------------------------- */

GL_EXPORT int gpuleak_snapshot(const char *path)
{
    if (!gl_ensure_active())
        return -1;
    gl_hook_depth++;
    int rc = gl_snapshot_write(GL_REASON_REQUEST, 0, path);
    gl_hook_depth--;
    return rc;
}

GL_EXPORT int gpuleak_snapshot_name(const char *path, char *name, size_t size)
{
    if (!gl_ensure_active())
        return -1;
    struct gl_snapshot_file *written = malloc(sizeof *written); /* 4 KiB: not on the caller's stack */
    if (written == NULL)
        return -1;
    gl_hook_depth++;
    int rc = gl_snapshot_write_file(GL_REASON_REQUEST, 0, path, written);
    gl_hook_depth--;
    if (rc == 0 && name != NULL && size > 0) {
        size_t len = strlen(written->path);
        if (len < size)
            memcpy(name, written->path, len + 1);
        else
            name[0] = '\0';
    }
    free(written);
    return rc;
}

GL_EXPORT int gpuleak_annotate(const char *label)
{
    if (!gl_ensure_active())
        return -1;
    gl_track_mark(GL_EV_ANNOTATION, gl_label_add(label), 0);
    return 0;
}

GL_EXPORT int gpuleak_record_history(int enabled, long max_entries)
{
    if (!gl_ensure_active())
        return -1;
    if (max_entries < 0 || max_entries > GL_MAX_MAX_ENTRIES)
        return -1;
    gl_track_configure_history(enabled ? (size_t)(max_entries ? max_entries : GL_DEFAULT_MAX_ENTRIES) : 0);
    if (enabled && gl_config.torch)
        gl_torch_user_wants_lines(); /* the user asked for history: PyTorch's lines too */
    return 0;
}
