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

#include "base/clock.h"
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
#include "control/final.h"
#include "control/take.h"
#include "control/tracking.h"
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
static atomic_bool activated;   /* activation ran (whatever its outcome) */

/* Each module's part in the process's life, in one table: what it does
 * before a fork (prefork: takes its locks), after it in the parent
 * (releases them) and in the child (starts afresh), when tracking starts
 * (activation, attach) and when a detach stops it.  NULL: nothing.
 *
 * Rows run top to bottom, except the parent's handlers, bottom to top
 * (locks released in the reverse of their order).  So the order of rows is
 * the order of the prefork locks: a live-view tick first (it takes the
 * exclusive section and the loader walk inside it), the stack cache's
 * recording walk next (nothing is taken inside it), then the loader walk: a
 * writer thread collecting modules holds it and never enters the exclusive
 * section inside it, and what fork copies must not be in mid-walk
 * (modules.c); the live table last.  And of the stops: no final snapshot
 * owed (pending), then the writer thread ended (trigger), before the live
 * file goes and before the tables it reads are emptied (the resets, which
 * keep their memory for the next attach, docs/attach.md "Detach"). */
struct life_handler {
    void (*prefork)(void);
    void (*postfork_parent)(void);
    void (*postfork_child)(void);
    void (*start)(void);
    void (*stop)(void);
};

static const struct life_handler life[] = {
    /* module         prefork                  parent                          child                            start             stop */
    /* pending */    {NULL,                    NULL,                           gl_pending_postfork_child,       NULL,             gl_pending_remove},
    /* trigger */    {NULL,                    NULL,                           gl_trigger_postfork_child,       gl_trigger_start, gl_trigger_stop},
    /* watch */      {gl_watch_prefork,        gl_watch_postfork_parent,       NULL,                            NULL,             gl_watch_remove},
    /* stack_cache */{gl_stack_cache_prefork,  gl_stack_cache_postfork_parent, gl_stack_cache_postfork_child,   NULL,             NULL},
    /* loader walk */{gl_loader_walk_prefork,  gl_loader_walk_postfork_parent, gl_loader_walk_postfork_child,   NULL,             NULL},
    /* resolve */    {NULL,                    NULL,                           gl_resolve_postfork_child,       NULL,             NULL},
    /* pools */      {NULL,                    NULL,                           gl_pools_postfork_child,         NULL,             NULL},
    /* track */      {gl_track_prefork,        gl_track_postfork_parent,       gl_track_postfork_child,         NULL,             gl_track_reset},
    /* snapshot */   {NULL,                    NULL,                           gl_snapshot_postfork_child,      NULL,             NULL},
    /* vmm */        {NULL,                    NULL,                           gl_vmm_postfork_child,           NULL,             gl_vmm_reset},
    /* pool_kinds */ {NULL,                    NULL,                           gl_pool_kinds_postfork_child,    NULL,             NULL},
    /* driver_view */{NULL,                    NULL,                           gl_driver_view_postfork_child,   NULL,             NULL},
    /* graph */      {NULL,                    NULL,                           gl_graph_postfork_child,         NULL,             NULL},
    /* ipc */        {NULL,                    NULL,                           gl_ipc_postfork_child,           NULL,             NULL},
    /* pyframes */   {NULL,                    NULL,                           gl_py_postfork_child,            NULL,             NULL},
    /* bad_free */   {NULL,                    NULL,                           gl_bad_free_postfork_child,      NULL,             gl_bad_free_reset},
    /* teardown */   {NULL,                    NULL,                           gl_teardown_postfork_child,      NULL,             gl_teardown_reset},
    /* exit_guard */ {NULL,                    NULL,                           gl_exit_postfork_child,          NULL,             NULL},
    /* torch */      {NULL,                    NULL,                           gl_torch_postfork_child,         NULL,             NULL},
    /* clock */      {NULL,                    NULL,                           gl_clock_postfork_child,         NULL,             NULL},
    /* the child's CUDA state is not the parent's */
    /* where */      {NULL,                    NULL,                           gl_where_devices_forget_all,     NULL,             NULL},
};
#define NLIFE (sizeof life / sizeof life[0])

/* Runs one column of the table, top to bottom. */
#define LIFE_RUN(member)                                                                                       \
    do {                                                                                                       \
        for (size_t i_ = 0; i_ < NLIFE; i_++)                                                                  \
            if (life[i_].member != NULL)                                                                       \
                life[i_].member();                                                                             \
    } while (0)

static void prefork(void) { LIFE_RUN(prefork); }

static void postfork_parent(void)
{
    for (size_t i = NLIFE; i-- > 0;)
        if (life[i].postfork_parent != NULL)
            life[i].postfork_parent();
}

static void start_modules(void) { LIFE_RUN(start); }
static void stop_modules(void) { LIFE_RUN(stop); }

static void postfork_child(void)
{
    /* A signal deferred inside the prepare handler's locks was sent to the
     * parent: no lock released below may act on it in the child. */
    atomic_store_explicit(&gl_busy_deferred, 0, memory_order_relaxed);
    LIFE_RUN(postfork_child);
    gl_tracking_set_process();
    gl_final_rearm();
    /* The prepare handler's locks were re-initialized, not released: the
     * child's one thread holds none of ours. */
    gl_busy = 0;
    gl_lock_check_none_held(", not re-made by fork's child handlers");
}

static void activate(void)
{
    gl_config_load();
    gl_self_init();
    if (gl_config.disabled) {
        atomic_store(&activated, true);
        return;
    }
    gl_clock_start();
    gl_procinfo_init();
    gl_outfile_setup(gl_config.output);
    gl_pending_configure();
    gl_track_configure_history((size_t)gl_config.max_entries);
    gl_tracking_set_process();
    pthread_atfork(prefork, postfork_parent, postfork_child);
    /* Registered first of the handlers registered from now on, it runs
     * after them: what they free is not reported as leaked. */
    at_quick_exit(gl_final_at_quick_exit);
    start_modules();
    gl_py_detect();
    gl_tracking_set_active(true);
    atomic_store(&activated, true);
}

/* ---- attach and detach (docs/attach.md) -------------------------------- */

static char detach_snapshot[4096]; /* the detach's snapshot file, for gpuleak detach to print */

const char *gl_detach_snapshot(void) { return detach_snapshot; }

int gl_lifecycle_attach(void)
{
    if (atomic_load(&activated) && gl_tracking_active())
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
        gl_final_rearm();
        start_modules();
        gl_tracking_set_active(true);
    }
    return gl_tracking_active() ? 0 : -1;
}

void gl_lifecycle_detach(bool snapshot)
{
    if (!gl_tracking_active())
        return;
    if (snapshot) {
        struct gl_snapshot_file *written = malloc(sizeof *written);
        gl_hook_depth++;
        detach_snapshot[0] = '\0';
        if (written != NULL && gl_take_snapshot(GL_REASON_DETACH, 0, NULL, NULL, written) == 0 &&
            strlen(written->path) < sizeof detach_snapshot)
            memcpy(detach_snapshot, written->path, strlen(written->path) + 1);
        gl_hook_depth--;
        free(written);
    }
    /* From here every hook passes its call straight through (gl_enter). */
    gl_tracking_set_active(false);
    /* Then each module stops (the table above): no final snapshot owed, the
     * writer ended, the live file gone, and what this attach recorded
     * dropped, so that the next attach starts from zero, as heaptrack -p
     * and memray attach do (docs/attach.md "Detach").  Hooks handed out
     * during the attach may still run, and one may be in flight: each
     * table is emptied under the locks its readers and writers take
     * (track.c); its memory is kept for reuse (freed, it would leave holes
     * in the program's heap), the interned stacks too. */
    stop_modules();
}

bool gl_ensure_active(void)
{
    if (!atomic_load_explicit(&activated, memory_order_acquire)) {
        gl_nocancel_begin(); /* reads files, starts the writer thread */
        pthread_once(&activate_once, activate);
        gl_nocancel_end();
    }
    if (!gl_tracking_active())
        return false;
    gl_pending_mark(); /* once per process: an atomic load after the first */
    gl_trigger_check();
    return true;
}

__attribute__((destructor)) static void gl_on_unload(void)
{
    gl_resolve_close_loader();
    /* main returned (libc's own call to exit is not hooked): from here a
     * second thread's exit() waits (exit_guard.c). */
    if (gl_tracking_active())
        gl_exit_claim();
    if (gl_tracking_active())
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
    int rc = gl_take_snapshot(GL_REASON_REQUEST, 0, path, NULL, NULL);
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
    int rc = gl_take_snapshot(GL_REASON_REQUEST, 0, path, NULL, written);
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
