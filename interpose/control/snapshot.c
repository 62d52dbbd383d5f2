#include "control/snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/config.h"
#include "base/internal.h"
#include "base/lock.h"
#include "base/log.h"
#include "base/modules.h"
#include "base/procenv.h"
#include "base/xfsz.h"
#include "control/outfile.h"
#include "control/snapshot_stages.h"
#include "control/snapshot_writer.h"
#include "control/torch_decode.h"
#include "cuda/driver_view.h"
#include "snapshot_format.h"
#include "state/bad_free.h"
#include "state/teardown.h"
#include "state/track.h"
#include "state/track_copy.h"

/* ---- process facts ---------------------------------------------------- */

#define CMDLINE_MAX (64 * 1024)
static char cmdline[CMDLINE_MAX]; /* NUL-separated argv, read at activation */
static size_t cmdline_len;
static char exe_path[GL_PATH_MAX];

void gl_procinfo_init(void)
{
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n;
        while (cmdline_len < sizeof cmdline &&
               (n = read(fd, cmdline + cmdline_len, sizeof cmdline - cmdline_len)) > 0)
            cmdline_len += (size_t)n;
        close(fd);
    }
    ssize_t n = readlink("/proc/self/exe", exe_path, sizeof exe_path - 1);
    exe_path[n > 0 ? n : 0] = '\0';
    gl_env_capture_initial();
}

/* ---- orchestration ------------------------------------------------------ */

static struct gl_lock snap_lock = GL_LOCK_INIT(SNAP);
static uint64_t next_index;
/* Once the final snapshot is written, the process is exiting: a periodic or
 * signal snapshot taken after it (the writer thread still runs during exit)
 * would be numbered after the "final" one and hide it. */
static bool final_taken;
static atomic_bool warned_mem; /* out of memory: said once, wherever */

/* The file's name was taken after gl_outfile_next_name chose it (another process
 * sharing the pattern): the next free number, written into the file too. */
static bool renumber(void *ctx, int fd, char *path, size_t size)
{
    const struct gl_snap_writer *w = ctx;
    uint64_t index;
    if (!gl_outfile_next_name(&next_index, path, size, &index))
        return false;
    for (size_t i = 0; i < sizeof w->index_at / sizeof w->index_at[0]; i++)
        if (w->index_at[i] != 0 && pwrite(fd, &index, sizeof index, (off_t)w->index_at[i]) != sizeof index)
            return false;
    return true;
}

int gl_snapshot_write(uint32_t reason, uint32_t flags, const char *path, const struct gl_torch_view *torch)
{
    return gl_snapshot_write_with(reason, flags, path, NULL, torch);
}

static int snapshot_write_locked(uint32_t reason, uint32_t flags, const char *path,
                                 const struct gl_mem_view *mem, struct gl_snapshot_file *written,
                                 const struct gl_torch_view *torch, const struct gl_driver_view *view);

/* The driver's view, asked while the program runs (NULL: not asked, or no
 * memory for it); at exit and on a fatal signal the driver is not asked
 * (driver_view.h; a fatal signal's thread may hold the driver's lock).
 * Asked with no lock of ours held: a thread inside a CUDA call may hold
 * the driver's lock and then wait for a snapshot of ours (a fatal
 * signal's), which must not wait for this one (issue 48). */
static struct gl_driver_view *ask_driver(uint32_t reason)
{
    if (reason != GL_REASON_SIGNAL && reason != GL_REASON_REQUEST && reason != GL_REASON_OOM &&
        reason != GL_REASON_PERIODIC && reason != GL_REASON_DETACH)
        return NULL;
    struct gl_driver_view *view = malloc(sizeof *view);
    if (view != NULL)
        gl_driver_view_query(view);
    return view;
}

/* The identity of the file about to be renamed into place (rename keeps the
 * inode). */
static bool note_written(const struct gl_outfile *of, const char *name, struct gl_snapshot_file *out)
{
    struct stat st;
    if (fstat(of->fd, &st) != 0)
        return false;
    snprintf(out->path, sizeof out->path, "%s", name);
    out->dev = (uint64_t)st.st_dev;
    out->ino = (uint64_t)st.st_ino;
    out->ours = !of->in_place;
    return true;
}

static int snapshot_write(uint32_t reason, uint32_t flags, const char *path, const struct gl_mem_view *mem,
                          struct gl_snapshot_file *written, const struct gl_torch_view *torch)
{
    struct gl_xfsz xfsz; /* base/xfsz.h: a file too large never kills the host */
    /* open, write and close are cancellation points: a thread cancelled in
     * the middle of a snapshot (gpuleak_snapshot from a thread the program
     * cancels) would die holding snap_lock, and every later snapshot, the
     * final one at exit included, would wait for it forever.  A pending
     * cancellation acts at the caller's next cancellation point instead. */
    int cancel_state;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
    struct gl_driver_view *asked = ask_driver(reason);
    const struct gl_driver_view *view = reason == GL_REASON_EXIT ? gl_driver_view_at_exit() : asked;
    gl_xfsz_block(&xfsz);
    gl_lock(&snap_lock);
    int rc = snapshot_write_locked(reason, flags, path, mem, written, torch, view);
    gl_unlock(&snap_lock);
    free(asked);
    gl_xfsz_restore(&xfsz);
    pthread_setcancelstate(cancel_state, NULL);
    return rc;
}

int gl_snapshot_write_with(uint32_t reason, uint32_t flags, const char *path,
                           const struct gl_mem_view *mem, const struct gl_torch_view *torch)
{
    return snapshot_write(reason, flags, path, mem, NULL, torch);
}

int gl_snapshot_write_file(uint32_t reason, uint32_t flags, const char *path,
                           struct gl_snapshot_file *written, const struct gl_torch_view *torch)
{
    return snapshot_write(reason, flags, path, NULL, written, torch);
}

/* The snapshot's file name and number: path, or the next name from
 * GPULEAK_OUTPUT.  false (said once) when there is none. */
static bool choose_name(const char *path, char *name, size_t size, uint64_t *index)
{
    static atomic_bool warned_name;
    if (path != NULL) {
        *index = next_index++;
        if (strlen(path) >= size) {
            gl_warn_once(&warned_name, "snapshot path too long");
            return false;
        }
        strcpy(name, path);
    } else if (!gl_outfile_next_name(&next_index, name, size, index)) {
        gl_warn_once(&warned_name, "cannot form a snapshot file name from GPULEAK_OUTPUT=%s",
                     gl_config.output);
        return false;
    }
    return true;
}

/* What the stages write from, copied now (snapshot_stages.h), and what
 * of it is this snapshot's to free. */
struct gathered {
    struct gl_bad_free *bad; /* NULL: none, or no memory for them */
    struct gl_teardown *torn;
    struct gl_state_copy copy;
    struct gl_module_list mods;
};

/* Copies the leaves, the state and the loaded objects into g and in; false
 * (nothing held) when memory ran out. */
static bool gather(struct gathered *g, struct gl_snap_inputs *in)
{
    g->bad = gl_bad_free_copy(&in->nbad);
    g->torn = gl_teardown_copy(&in->ntorn);
    if (!gl_track_copy(&g->copy)) {
        free(g->bad);
        free(g->torn);
        return false;
    }
    /* Taken now, after the copy: every event, peak and allocation it holds
     * (this snapshot's own mark included) happened before this time.
     * Stamped before the driver was asked and the state copied, it was
     * earlier than events it contained. */
    in->snap_unix = gl_unix_ns();
    in->snap_mono = gl_mono_ns() - gl_start_mono_ns;
    if (gl_modules_collect(&g->mods) != 0) {
        gl_state_copy_free(&g->copy);
        free(g->bad);
        free(g->torn);
        return false;
    }
    in->bad = g->bad;
    in->torn = g->torn;
    in->copy = &g->copy;
    in->mods = &g->mods;
    in->cmdline = cmdline;
    in->cmdline_len = cmdline_len;
    in->exe_path = exe_path;
    return true;
}

static void gathered_free(struct gathered *g)
{
    free(g->bad);
    free(g->torn);
    gl_modules_free(&g->mods);
    gl_state_copy_free(&g->copy);
}

/* Writes the stages into name, atomically (control/outfile.h); path NULL:
 * a numbered name, renumbered if another process took it.  0, or -1 said
 * once. */
static int write_file(const char *name, const char *path, const struct gl_snap_inputs *in,
                      struct gl_snapshot_file *written)
{
    static atomic_bool warned_io;
    struct gl_snap_writer *w = malloc(sizeof *w);
    struct gl_outfile of;
    int rc = -1;
    if (w == NULL) {
        gl_warn_once(&warned_mem, "out of memory while taking a snapshot; none written");
    } else if (!gl_outfile_open(&of, name)) {
        if (errno != ENOENT || !gl_outfile_missing_dir_said()) /* said at the start: one line */
            gl_warn_once(&warned_io, "cannot write snapshot %s: %s", name, strerror(errno));
    } else {
        memset(w, 0, offsetof(struct gl_snap_writer, buf));
        w->fd = of.fd;
        gl_snapshot_write_stages(w, in);
        gl_snap_flush(w);
        if (w->err) {
            errno = w->err;
            gl_warn_once(&warned_io, "cannot write snapshot %s: %s", name, strerror(errno));
            gl_outfile_abort(&of);
        } else if (written != NULL && !note_written(&of, name, written)) {
            gl_warn_once(&warned_io, "cannot write snapshot %s: %s", name, strerror(errno));
            gl_outfile_abort(&of);
        } else if (!gl_outfile_commit(&of, path == NULL && gl_outfile_numbered() ? renumber : NULL, w)) {
            gl_warn_once(&warned_io, "cannot write snapshot %s: %s", of.final_path, strerror(errno));
        } else {
            if (written != NULL)
                snprintf(written->path, sizeof written->path, "%s", of.final_path);
            rc = 0;
        }
    }
    free(w);
    return rc;
}

static int snapshot_write_locked(uint32_t reason, uint32_t flags, const char *path,
                                 const struct gl_mem_view *mem, struct gl_snapshot_file *written,
                                 const struct gl_torch_view *torch, const struct gl_driver_view *view)
{
    if (final_taken)
        return -1;
    if (flags & GL_SNAP_F_FINAL)
        final_taken = true;
    char name[GL_PATH_MAX];
    struct gl_snap_inputs in = {.reason = reason, .flags = flags, .mem = mem, .view = view, .torch = torch};
    if (!choose_name(path, name, sizeof name, &in.index))
        return -1;
    gl_track_mark(GL_EV_SNAPSHOT, 0, in.index);
    struct gathered g;
    if (!gather(&g, &in)) {
        gl_warn_once(&warned_mem, "out of memory while taking a snapshot; none written");
        return -1;
    }
    int rc = write_file(name, path, &in, written);
    gathered_free(&g);
    return rc;
}

void gl_snapshot_postfork_child(void)
{
    gl_lock_init(&snap_lock, GL_LOCK_SNAP, 0);
    next_index = 0;
    final_taken = false;
}
