#include "control/watch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/config.h"
#include "base/internal.h"
#include "base/lock.h"
#include "base/log.h"
#include "base/xfsz.h"
#include "base/self.h"
#include "control/outfile.h"
#include "control/watch_text.h"
#include "state/track.h"
#include "state/track_copy.h"

#define LIVE_PERIOD_MS 1000
/* An idle job's file is still rewritten now and then, so that `gpuleak top`
 * can tell a quiet process from a dead one by the file's time. */
#define LIVE_IDLE_MS 5000
#define DIR_MAX 512

static bool live_on, metrics_on;
static char live_dir[DIR_MAX];
/* GPULEAK_METRICS made absolute once, at activation (a relative name is
 * not moved by the program's chdir), and expanded like GPULEAK_OUTPUT by
 * each process at its first write (a forked child has its own %p). */
static char metrics_pattern[GL_PATH_MAX];
static char metrics_path[GL_PATH_MAX]; /* "" until expanded in this process */
static atomic_bool warned_shared;      /* another process writes our file: said */
static mode_t metrics_mode = 0600;
/* The rank label, read here once: getenv on the writer thread every second
 * would race with a program thread's setenv (glibc may move environ). */
static uint32_t metrics_rank;
static uint64_t due_ns, last_write_ns;
static uint64_t last_fingerprint;
static char live_name[32];
static atomic_bool live_written; /* this process has a live file to remove */

/* The tick's buffers: reused from tick to tick (one thread ticks:
 * trigger.c's), and reachable from here while in use.  Neither exit() nor
 * exit() does not wait for that thread, so a leak checker that runs at exit
 * while it is mid-tick would otherwise call a buffer that only its stack held lost.
 * fork() does wait for a tick (tick_lock): a child forked mid-tick would
 * have the tick's heap and no thread to free it, and, in a program whose
 * allocator does not lock itself around fork (ASan's, before LLVM 17), an
 * allocator lock held by the tick's thread forever (t_fork, ASan phase). */
static struct gl_lock tick_lock = GL_LOCK_INIT(TICK);
static struct gl_watch_text live_buf, metrics_buf;
static struct gl_watch_copy watch_copy; /* its sites are malloc'ed straight into it */

/* ---- configuration ------------------------------------------------------ */

static bool default_dir(char *buf, size_t size)
{
    struct stat st;
    const char *base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp";
    int n = snprintf(buf, size, "%s/gpuleak-%u", base, (unsigned)geteuid());
    return n > 0 && (size_t)n < size;
}

void gl_watch_configure(void)
{
    static atomic_bool warned_live, warned_dir, warned_metrics, warned_mode;
    live_on = gl_env_bool("GPULEAK_LIVE", true, &warned_live);
    const char *dir = gl_getenv("GPULEAK_LIVE_DIR");
    if (dir != NULL && *dir != '\0') {
        if (dir[0] != '/' || strlen(dir) >= sizeof live_dir) {
            gl_warn_once(&warned_dir, "ignoring GPULEAK_LIVE_DIR=%.40s: not an absolute path under %zu bytes",
                         dir, sizeof live_dir);
            dir = NULL;
        } else {
            memcpy(live_dir, dir, strlen(dir) + 1);
        }
    } else {
        dir = NULL;
    }
    if (dir == NULL && !default_dir(live_dir, sizeof live_dir))
        live_on = false;

    const char *m = gl_getenv("GPULEAK_METRICS");
    metrics_on = false;
    metrics_path[0] = '\0';
    if (m != NULL && *m != '\0') {
        const char *bad;
        if (strlen(m) >= sizeof metrics_pattern || !gl_outfile_absolute(m, metrics_pattern, sizeof metrics_pattern))
            gl_warn_once(&warned_metrics, "ignoring GPULEAK_METRICS: longer than %zu bytes with the working directory",
                         sizeof metrics_pattern - 1);
        else
            metrics_on = true;
        if (metrics_on && (bad = gl_output_unknown_conversion(m)) != NULL)
            gl_warn_once(&warned_metrics, "GPULEAK_METRICS=%.60s: unknown conversion '%%%.1s' kept as text "
                         "(known: %%p %%h %%r %%t %%%%)", m, bad + 1);
    }
    metrics_rank = gl_rank();
    const char *mode = gl_getenv("GPULEAK_METRICS_MODE");
    if (mode != NULL && *mode != '\0') {
        char *end;
        errno = 0;
        unsigned long v = strtoul(mode, &end, 8);
        if (errno == 0 && *end == '\0' && end != mode && v <= 0666 && (v & 0600) == 0600)
            metrics_mode = (mode_t)v;
        else
            gl_warn_once(&warned_mode, "ignoring GPULEAK_METRICS_MODE=%.40s: expected an octal mode "
                         "from 0600 to 0666, using 0600", mode);
    }
    snprintf(live_name, sizeof live_name, "%d.live", (int)getpid());
    due_ns = gl_mono_ns();
}

uint64_t gl_watch_wait_ms(void)
{
    if (!live_on && !metrics_on)
        return UINT64_MAX;
    uint64_t now = gl_mono_ns();
    return now >= due_ns ? 0 : (due_ns - now + 999999u) / 1000000u;
}

/* ---- safe atomic replacement ------------------------------------------- */

/* The live directory, ours alone: created 0700 if missing, refused (and
 * the live file turned off, with one warning) if it is a symlink, somebody
 * else's, or open to others -- another user could otherwise replace our file
 * or read what the job allocates.  Opened anew each time and closed after
 * use: a descriptor kept open could be closed by the program (closefrom)
 * and its number reused for a directory of the program's. */
static int open_live_dir(void)
{
    static atomic_bool warned;
    if (mkdir(live_dir, 0700) != 0 && errno != EEXIST)
        goto refuse;
    int fd = open(live_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        goto refuse;
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
        close(fd);
        errno = EPERM;
        goto refuse;
    }
    return fd;
refuse:
    /* Out of descriptors or memory is the moment's, and the snapshot that
     * fails with it says so: one line is the host's whole budget.  Retried
     * at the next tick. */
    if (errno == EMFILE || errno == ENFILE || errno == ENOMEM || errno == EINTR)
        return -1;
    gl_warn_once(&warned, "live view off: %s is not a directory of this user's alone (%s)", live_dir,
                 strerror(errno));
    live_on = false;
    return -1;
}

static bool write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/* Writes text to dirfd/name through a temporary of our own (O_EXCL, no
 * symlink followed) renamed over it: a reader sees the old file or the new
 * one, never a part. */
static bool replace_file(int dirfd, const char *name, const struct gl_watch_text *t, mode_t mode)
{
    char tmp[96];
    snprintf(tmp, sizeof tmp, ".%.40s.%d.tmp", name, (int)getpid());
    unlinkat(dirfd, tmp, 0); /* left by a crash of an earlier process with our pid */
    int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0)
        return false;
    bool ok = fchmod(fd, mode) == 0 && write_all(fd, t->s, t->len);
    ok = close(fd) == 0 && ok;
    if (ok && renameat(dirfd, tmp, dirfd, name) == 0)
        return true;
    unlinkat(dirfd, tmp, 0);
    return false;
}

/* This process's metrics file name: the pattern expanded (%n is 0, %t the
 * time of the process's first write); false, with one warning, when it
 * expands to no file name. */
static bool metrics_name(void)
{
    static atomic_bool warned;
    if (metrics_path[0] != '\0')
        return true;
    if (gl_outfile_expand_pattern(metrics_pattern, 0, metrics_path, sizeof metrics_path))
        return true;
    metrics_path[0] = '\0';
    gl_warn_once(&warned, "ignoring GPULEAK_METRICS=%.200s: it names no file", metrics_pattern);
    metrics_on = false;
    return false;
}

/* The pid in the samples of the metrics file dirfd/name when another live
 * process wrote it (its pid label), else 0.  Read without following a
 * symlink or blocking on a FIFO, at most 4 KiB: the first sample is there. */
static int other_writer(int dirfd, const char *name)
{
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char buf[4096];
    struct stat st;
    ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, buf, sizeof buf - 1) : -1;
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    const char *label = strstr(buf, ",pid=\"");
    long pid = label ? strtol(label + 6, NULL, 10) : 0;
    if (pid <= 0 || pid > INT32_MAX || pid == (long)getpid())
        return 0;
    return kill((pid_t)pid, 0) == 0 || errno == EPERM ? (int)pid : 0;
}

static void write_metrics(const struct gl_watch_text *t)
{
    static atomic_bool warned;
    if (!metrics_name())
        return;
    /* The temporary beside the file, so that the rename stays in one
     * filesystem and the collector never reads half a file. */
    char dir[GL_PATH_MAX];
    const char *slash = strrchr(metrics_path, '/');
    const char *name = slash ? slash + 1 : metrics_path;
    if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
    else if (slash == metrics_path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - metrics_path), metrics_path);
    int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    /* Without %p, ranks and workers that inherited the name overwrite each
     * other's figures: the file holds one pid.  Said once per process. */
    int other;
    if (dirfd >= 0 && !atomic_load(&warned_shared) && !gl_outfile_pattern_has(metrics_pattern, 'p') &&
        (other = other_writer(dirfd, name)) != 0) {
        gl_warn_once(&warned_shared, "GPULEAK_METRICS=%.200s: process %d writes this file too; put %%p in the name for a file "
                "per process", metrics_path, other);
    }
    if (dirfd < 0 || *name == '\0' || !replace_file(dirfd, name, t, metrics_mode))
        gl_warn_once(&warned, "cannot write GPULEAK_METRICS=%.200s: %s", metrics_path, strerror(errno));
    if (dirfd >= 0)
        close(dirfd);
}

static void watch_tick(void);

void gl_watch_run(void)
{
    if ((!live_on && !metrics_on) || gl_watch_wait_ms() != 0)
        return;
    gl_lock(&tick_lock);
    watch_tick();
    gl_unlock(&tick_lock);
}

void gl_watch_prefork(void)
{
    gl_lock(&tick_lock);
}

void gl_watch_postfork_parent(void)
{
    gl_unlock(&tick_lock);
}

/* One tick: the figures copied, and the files written when they changed or
 * are due again. */
static void watch_tick(void)
{
    uint64_t now = gl_mono_ns();
    due_ns = now + LIVE_PERIOD_MS * 1000000ull;
    struct gl_watch_copy *c = &watch_copy;
    if (!gl_track_watch_copy(c))
        return;
    uint64_t fp = gl_watch_fingerprint(c);
    if (fp == last_fingerprint && last_write_ns != 0 && now - last_write_ns < LIVE_IDLE_MS * 1000000ull) {
        free(c->sites);
        c->sites = NULL;
        return;
    }
    gl_watch_sort_sites(c);
    bool wrote = false;
    struct gl_xfsz xfsz; /* a file past RLIMIT_FSIZE fails, never kills the host */
    gl_xfsz_block(&xfsz);
    int dirfd = live_on ? open_live_dir() : -1;
    if (dirfd >= 0) {
        struct gl_watch_text *t = gl_watch_text_reuse(&live_buf);
        gl_watch_live_text(t, c);
        wrote = !t->failed && replace_file(dirfd, live_name, t, 0600);
        close(dirfd);
        if (wrote)
            atomic_store(&live_written, true);
    }
    if (metrics_on) {
        struct gl_watch_text *t = gl_watch_text_reuse(&metrics_buf);
        gl_watch_metrics_text(t, c, metrics_rank);
        if (!t->failed)
            write_metrics(t);
        wrote = true;
    }
    gl_xfsz_restore(&xfsz);
    free(c->sites);
    c->sites = NULL;
    if (wrote) {
        last_fingerprint = fp;
        last_write_ns = now;
    }
}

void gl_watch_remove(void)
{
    if (!atomic_load(&live_written))
        return;
    int dirfd = open(live_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dirfd >= 0) {
        unlinkat(dirfd, live_name, 0);
        close(dirfd);
    }
}

void gl_watch_postfork_child(void)
{
    gl_lock_init(&tick_lock, GL_LOCK_TICK, 0);
    /* The parent's file stays the parent's: the child writes its own. */
    snprintf(live_name, sizeof live_name, "%d.live", (int)getpid());
    metrics_path[0] = '\0'; /* expanded again: %p is the child's */
    atomic_store(&warned_shared, false);
    atomic_store(&live_written, false);
    last_fingerprint = 0;
    last_write_ns = 0;
    due_ns = gl_mono_ns();
}
