#include "control/pending.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/config.h"
#include "base/log.h"
#include "base/xfsz.h"

#define DIR_MAX 512

static char pending_dir[DIR_MAX]; /* "" : no mark */
static atomic_bool marked;        /* this process's mark was made (or is off) */
static _Atomic pid_t marked_pid;  /* the process whose file it is */

void gl_pending_configure(void)
{
    static atomic_bool warned;
    pending_dir[0] = '\0';
    atomic_store(&marked, false); /* (again after a detach: a new attach's mark) */
    atomic_store(&marked_pid, 0);
    const char *dir = gl_getenv("GPULEAK_PENDING_DIR");
    if (dir == NULL || *dir == '\0')
        return;
    if (dir[0] != '/' || strlen(dir) >= sizeof pending_dir - 16) {
        gl_warn_once(&warned, "ignoring GPULEAK_PENDING_DIR=%.40s: not an absolute path under %zu bytes", dir,
                     sizeof pending_dir - 16);
        return;
    }
    memcpy(pending_dir, dir, strlen(dir) + 1);
}

static bool mark_path(pid_t pid, char *buf, size_t size)
{
    int n = snprintf(buf, size, "%s/%d", pending_dir, (int)pid);
    return n > 0 && (size_t)n < size;
}

/* O_NOFOLLOW: a planted symlink is never written through (G4). */
static int open_mark(pid_t pid, int flags)
{
    char path[DIR_MAX + 16];
    if (!mark_path(pid, path, sizeof path))
        return -1;
    return open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | flags, 0600);
}

void gl_pending_mark(void)
{
    static atomic_bool warned;
    if (atomic_load_explicit(&marked, memory_order_relaxed) || atomic_exchange(&marked, true))
        return;
    if (pending_dir[0] == '\0')
        return;
    pid_t pid = getpid();
    int fd = open_mark(pid, O_CREAT | O_TRUNC);
    if (fd < 0) {
        gl_warn_once(&warned, "cannot make the mark in GPULEAK_PENDING_DIR=%.200s: %s", pending_dir,
                     strerror(errno));
        return;
    }
    close(fd);
    atomic_store(&marked_pid, pid);
}

static bool own_mark(void) { return pending_dir[0] != '\0' && atomic_load(&marked_pid) == getpid(); }

void gl_pending_clear(void)
{
    char path[DIR_MAX + 16];
    if (own_mark() && mark_path(getpid(), path, sizeof path))
        unlink(path);
}

void gl_pending_failed(void)
{
    static const char said[] = "the final snapshot could not be written\n";
    if (!own_mark())
        return;
    struct gl_xfsz xfsz; /* a file size limit never kills the host */
    gl_xfsz_block(&xfsz);
    int fd = open_mark(getpid(), O_TRUNC);
    if (fd >= 0) {
        ssize_t n = write(fd, said, sizeof said - 1);
        (void)n; /* nothing more to do: the mark itself stays */
        close(fd);
    }
    gl_xfsz_restore(&xfsz);
}

void gl_pending_postfork_child(void)
{
    atomic_store(&marked, false);
    atomic_store(&marked_pid, 0);
}
