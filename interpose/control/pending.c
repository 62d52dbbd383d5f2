#include "control/pending.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/config.h"
#include "base/internal.h"
#include "base/log.h"
#include "base/xfsz.h"
#include "control/outfile.h"

#define DIR_MAX 512
#define NAME_MAX_LEN (DIR_MAX + 32)

static char pending_dir[DIR_MAX]; /* "": no mark */
static atomic_bool marked;        /* this process's mark was made (or is off) */
static _Atomic pid_t marked_pid;  /* the process whose mark it is */

void gl_pending_configure(void)
{
    static atomic_bool warned;
    pending_dir[0] = '\0';
    atomic_store(&marked, false); /* (again after a detach: a new attach's mark) */
    atomic_store(&marked_pid, 0);
    const char *dir = gl_getenv("GPULEAK_PENDING_DIR");
    if (dir == NULL || *dir == '\0')
        return;
    if (dir[0] != '/' || strlen(dir) >= sizeof pending_dir) {
        gl_warn_once(&warned, "ignoring GPULEAK_PENDING_DIR=%.40s: not an absolute path under %zu bytes", dir,
                     sizeof pending_dir);
        return;
    }
    memcpy(pending_dir, dir, strlen(dir) + 1);
}

static bool mark_path(const char *suffix, char *buf, size_t size)
{
    int n = snprintf(buf, size, "%s/%d%s", pending_dir, (int)getpid(), suffix);
    return n > 0 && (size_t)n < size;
}

void gl_pending_mark(void)
{
    static atomic_bool warned;
    if (atomic_load_explicit(&marked, memory_order_relaxed) || atomic_exchange(&marked, true))
        return;
    char path[NAME_MAX_LEN];
    if (pending_dir[0] == '\0' || !mark_path("", path, sizeof path))
        return;
    /* open and close are cancellation points: the mark is made whole, or
     * not at all (a hook's caller, base/internal.h). */
    gl_nocancel_begin();
    /* O_NOFOLLOW: a planted symlink is never written through (G4). */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        gl_warn_once(&warned, "cannot make the mark in GPULEAK_PENDING_DIR=%.200s: %s", pending_dir,
                     strerror(errno));
        gl_nocancel_end();
        return;
    }
    close(fd);
    gl_nocancel_end();
    atomic_store(&marked_pid, getpid());
}

static bool own_mark(void) { return pending_dir[0] != '\0' && atomic_load(&marked_pid) == getpid(); }

/* The mark replaced whole (a temporary renamed over it): a reader sees the
 * empty mark or the full line, never a part. */
static void replace_mark(const char *text)
{
    char tmp[NAME_MAX_LEN], path[NAME_MAX_LEN];
    if (!mark_path(".tmp", tmp, sizeof tmp) || !mark_path("", path, sizeof path))
        return;
    struct gl_xfsz xfsz; /* a file size limit never kills the host */
    gl_xfsz_block(&xfsz);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
        size_t len = strlen(text);
        bool ok = write(fd, text, len) == (ssize_t)len;
        close(fd);
        if (!ok || rename(tmp, path) != 0)
            unlink(tmp); /* the empty mark stays: not judged, which is true */
    }
    gl_xfsz_restore(&xfsz);
}

void gl_pending_final(const char *path)
{
    if (!own_mark())
        return;
    static char line[GL_PATH_MAX + 16]; /* one final snapshot per process */
    if (path == NULL || snprintf(line, sizeof line, "written %s\n", path) >= (int)sizeof line)
        snprintf(line, sizeof line, "not written\n");
    replace_mark(line);
}

void gl_pending_remove(void)
{
    char path[NAME_MAX_LEN];
    if (own_mark() && mark_path("", path, sizeof path))
        unlink(path);
}

bool gl_pending_process_called(void) { return atomic_load(&marked); }

/* The K of the exec mark made, -1 if none: made by the writer thread (the
 * exec snapshot's job), removed by the thread whose exec failed. */
static atomic_int exec_mark_k = -1;

static bool exec_mark_path(int k, char *buf, size_t size)
{
    char suffix[32];
    snprintf(suffix, sizeof suffix, ".exec.%d", k);
    return mark_path(suffix, buf, size);
}

/* Creates the first free "PID.exec.K" (O_EXCL: an earlier image's stays)
 * holding text; its K, or -1 if none could be made. */
static int make_exec_mark(const char *text)
{
    char path[NAME_MAX_LEN];
    for (int k = 0; k < 100 && exec_mark_path(k, path, sizeof path); k++) {
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno == EEXIST)
            continue;
        if (fd < 0)
            return -1;
        size_t len = strlen(text);
        bool ok = write(fd, text, len) == (ssize_t)len;
        close(fd);
        if (ok)
            return k;
        unlink(path);
        return -1;
    }
    return -1;
}

void gl_pending_exec(const char *path)
{
    static char line[GL_PATH_MAX + 16];
    atomic_store(&exec_mark_k, -1);
    if (!own_mark() || path == NULL || snprintf(line, sizeof line, "written %s\n", path) >= (int)sizeof line)
        return;
    char main_mark[NAME_MAX_LEN];
    struct gl_xfsz xfsz; /* a file size limit never kills the host */
    gl_xfsz_block(&xfsz);
    int k = make_exec_mark(line);
    if (k >= 0 && mark_path("", main_mark, sizeof main_mark))
        unlink(main_mark);
    gl_xfsz_restore(&xfsz);
    atomic_store(&exec_mark_k, k);
}

void gl_pending_exec_failed(void)
{
    int k = atomic_exchange(&exec_mark_k, -1);
    char path[NAME_MAX_LEN];
    if (k < 0 || !exec_mark_path(k, path, sizeof path))
        return;
    unlink(path);
    if (!mark_path("", path, sizeof path))
        return;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0)
        close(fd);
}

void gl_pending_postfork_child(void)
{
    atomic_store(&exec_mark_k, -1);
    atomic_store(&marked, false);
    atomic_store(&marked_pid, 0);
}
