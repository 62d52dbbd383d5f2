/* Start, fork and exit of the tracked process.
 *
 * Loading the library does almost nothing (it records the start time): a
 * process that never calls CUDA behaves exactly as without it, writes no file
 * and gets no handlers.  Tracking is activated by the first intercepted call;
 * the final snapshot is written by the library destructor, which runs after
 * the program's atexit handlers, so memory those handlers free is not reported
 * as leaked.  _exit() and SIGKILL skip destructors: no final snapshot then. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bad_free.h"
#include "teardown.h"
#include "config.h"
#include "driver_view.h"
#include "exit_guard.h"
#include "gpuleak.h"
#include "graph.h"
#include "history.h"
#include "internal.h"
#include "ipc.h"
#include "live.h"
#include "log.h"
#include "modules.h"
#include "outfile.h"
#include "pool_kinds.h"
#include "pools.h"
#include "pyframes.h"
#include "resolve.h"
#include "snapshot.h"
#include "snapshot_format.h"
#include "track.h"
#include "trigger.h"
#include "vmm.h"

GL_TLS int gl_hook_depth;
GL_TLS int gl_busy;
GL_TLS int gl_cancel_saved;
_Atomic uint64_t gl_start_mono_ns; /* written once, before or at activation; atomic so no thread reads it torn (TSan) */
_Atomic uint64_t gl_start_unix_ns;

static pthread_once_t activate_once = PTHREAD_ONCE_INIT;
static atomic_bool active;      /* tracking on */
static atomic_bool activated;   /* activation ran (whatever its outcome) */
static atomic_bool final_done;
/* libgpuleak's own address range.  Found by the constructor, or on demand by
 * whichever thread needs it first (dlsym before our constructor, a thread
 * racing it): atomics, start stored before end, so a reader that sees the end
 * sees the start, and two finders write the same values without a data race. */
static _Atomic uintptr_t own_start, own_end;

static void find_own_range(uintptr_t probe)
{
    uintptr_t start, end;
    if (gl_module_range_of(probe, &start, &end) != 0)
        return;
    atomic_store(&own_start, start);
    atomic_store(&own_end, end);
}

static GL_TLS uint32_t cached_tid;
static GL_TLS pid_t cached_tid_pid;

uint32_t gl_gettid(void)
{
    /* Cached per thread; re-read after fork, where the child's only thread
     * keeps the TLS of the forking thread but has a new id. */
    pid_t pid = getpid();
    if (cached_tid == 0 || cached_tid_pid != pid) {
        cached_tid = (uint32_t)syscall(SYS_gettid);
        cached_tid_pid = pid;
    }
    return cached_tid;
}

bool gl_is_own_address(uintptr_t addr)
{
    /* dlsym can be called before our constructor has run (by the
     * constructor of a library loaded earlier): find the range on demand. */
    if (atomic_load(&own_end) == 0)
        find_own_range((uintptr_t)&gl_is_own_address);
    uintptr_t end = atomic_load(&own_end);
    return addr >= atomic_load(&own_start) && addr < end;
}

__attribute__((constructor)) static void gl_on_load(void)
{
    gl_start_mono_ns = gl_mono_ns();
    gl_start_unix_ns = gl_unix_ns();
    /* Our own address range is needed before any hook can resolve or unwind;
     * finding it touches no CUDA state and allocates nothing. */
    find_own_range((uintptr_t)&gl_on_load);
}

/* The loader walk is taken first: a writer thread collecting modules holds
 * it and never enters the exclusive section inside it, and what fork copies
 * must not be in mid-walk (modules.c). */
static void prefork(void)
{
    gl_loader_walk_prefork();
    gl_track_prefork();
}

static void postfork_parent(void)
{
    gl_track_postfork_parent();
    gl_loader_walk_postfork_parent();
}

static void postfork_child(void)
{
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
    atomic_store(&final_done, false);
    /* The prepare handler's locks were re-initialized, not released: the
     * child's one thread holds none of ours. */
    gl_busy = 0;
}

static void activate(void)
{
    gl_config_load();
    if (gl_start_mono_ns == 0) { /* called before our constructor ran */
        gl_start_mono_ns = gl_mono_ns();
        gl_start_unix_ns = gl_unix_ns();
    }
    if (atomic_load(&own_end) == 0)
        find_own_range((uintptr_t)&activate);
    if (gl_config.disabled) {
        atomic_store(&activated, true);
        return;
    }
    gl_procinfo_init();
    gl_outfile_setup(gl_config.output);
    gl_track_configure_history((size_t)gl_config.max_entries);
    pthread_atfork(prefork, postfork_parent, postfork_child);
    gl_trigger_start();
    gl_py_detect();
    atomic_store(&active, true);
    atomic_store(&activated, true);
}

bool gl_tracking_active(void) { return atomic_load(&active); }

bool gl_ensure_active(void)
{
    if (!atomic_load_explicit(&activated, memory_order_acquire))
        pthread_once(&activate_once, activate);
    if (!atomic_load_explicit(&active, memory_order_relaxed))
        return false;
    gl_trigger_check();
    return true;
}

void gl_final_snapshot(uint32_t reason)
{
    if (!atomic_load(&active) || atomic_exchange(&final_done, true))
        return;
    gl_hook_depth++; /* anything CUDA we trigger from here is not recorded */
    gl_snapshot_write(reason, GL_SNAP_F_FINAL, NULL);
    gl_hook_depth--;
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
    gl_live_remove();
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
    return 0;
}
