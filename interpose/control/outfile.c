#include "control/outfile.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/config.h"
#include "base/internal.h"
#include "base/log.h"
#include "output_target.h"

/* libc, through the table (outfile.h); open and openat are variadic. */
static int libc_open(const char *path, int flags, mode_t mode) { return open(path, flags, mode); }
static int libc_openat(int dirfd, const char *path, int flags, mode_t mode)
{
    return openat(dirfd, path, flags, mode);
}
struct gl_outfile_io gl_outfile_io = {
    .open = libc_open,
    .openat = libc_openat,
    .write = write,
    .fstat = fstat,
    .fstatat = fstatat,
    .lstat = lstat,
    .renameat2 = renameat2,
    .linkat = linkat,
    .unlinkat = unlinkat,
    .close = close,
};
#define IO gl_outfile_io

static bool append(char *buf, size_t size, size_t *len, const char *s)
{
    size_t n = strlen(s);
    if (*len + n >= size)
        return false;
    memcpy(buf + *len, s, n);
    *len += n;
    buf[*len] = '\0';
    return true;
}

static char resolved[GL_PATH_MAX]; /* absolute pattern, a file pattern */
/* The working directory a relative pattern was resolved against ("" for an
 * absolute pattern): the writer thread keeps it as its own (gl_outfile_pin_cwd). */
static char resolved_base[GL_PATH_MAX];

/* Appends s to buf[*len] with every '%' doubled: a directory name joined
 * into the pattern is literal text, and "res%p" must not become a pid. */
static bool append_literal(char *buf, size_t size, size_t *len, const char *s)
{
    for (; *s; s++) {
        size_t n = *s == '%' ? 2 : 1;
        if (*len + n >= size)
            return false;
        buf[(*len)++] = *s;
        if (*s == '%')
            buf[(*len)++] = '%';
    }
    buf[*len] = '\0';
    return true;
}

/* joined made absolute against the working directory now, which is
 * copied to cwd (GL_PATH_MAX bytes) when joined is relative ("" otherwise). */
static bool absolute_pattern(const char *joined, char *out, size_t size, char *cwd)
{
    cwd[0] = '\0';
    size_t n = strlen(joined);
    if (joined[0] == '/') {
        if (n >= size)
            return false;
        memcpy(out, joined, n + 1);
        return true;
    }
    if (getcwd(cwd, GL_PATH_MAX) == NULL) {
        cwd[0] = '\0';
        return false;
    }
    size_t len = 0;
    out[0] = '\0';
    if (!append_literal(out, size, &len, cwd) || !append(out, size, &len, "/") ||
        !append(out, size, &len, joined)) {
        cwd[0] = '\0';
        return false;
    }
    return true;
}

bool gl_outfile_absolute(const char *pattern, char *out, size_t size)
{
    char cwd[GL_PATH_MAX];
    return absolute_pattern(pattern, out, size, cwd);
}

static atomic_bool missing_dir_said;

/* A directory part with no conversion must exist now, as `gpuleak run
 * --output` checks it: said once here, at the first CUDA call, not first
 * at exit after the whole job.  (Made later by the program, it serves.) */
static void check_directory(const char *pattern, bool is_dir)
{
    char dir[GL_PATH_MAX];
    const char *slash = strrchr(pattern, '/');
    const char *base = slash != NULL ? slash + 1 : pattern;
    if (!is_dir && (strcmp(base, ".") == 0 || strcmp(base, "..") == 0))
        return; /* no file name at all: that is the one thing said (at the write) */
    size_t len = is_dir ? strlen(pattern) : slash != NULL ? (size_t)(slash - pattern) : 0;
    while (is_dir && len > 1 && pattern[len - 1] == '/')
        len--;
    if (len == 0 && slash == pattern)
        len = 1; /* "/name": the root */
    if (len == 0 || len >= sizeof dir || memchr(pattern, '%', len) != NULL)
        return; /* the working directory, or made per process */
    memcpy(dir, pattern, len);
    dir[len] = '\0';
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        gl_warn_once(&missing_dir_said, "GPULEAK_OUTPUT=%.200s: no directory %.200s", pattern, dir);
}

bool gl_outfile_missing_dir_said(void) { return atomic_load(&missing_dir_said); }

void gl_outfile_setup(const char *pattern)
{
    static atomic_bool warned;
    char joined[GL_PATH_MAX];
    size_t plen = strlen(pattern);
    bool is_dir = plen > 0 && pattern[plen - 1] == '/';
    struct stat st;
    if (!is_dir && stat(pattern, &st) == 0 && S_ISDIR(st.st_mode))
        is_dir = true;
    resolved_base[0] = '\0';
    check_directory(pattern, is_dir);
    int n = snprintf(joined, sizeof joined, "%s%s%s", pattern,
                     is_dir && pattern[plen - 1] != '/' ? "/" : "",
                     is_dir ? GL_DEFAULT_OUTPUT : "");
    if (n >= 0 && (size_t)n < sizeof joined && absolute_pattern(joined, resolved, sizeof resolved, resolved_base))
        return;
    gl_warn_once(&warned, "output pattern too long; using %s in the working directory",
                 GL_DEFAULT_OUTPUT);
    snprintf(resolved, sizeof resolved, "%s", GL_DEFAULT_OUTPUT);
    resolved_base[0] = '\0';
}

void gl_outfile_pin_cwd(void)
{
    /* Only this thread's working directory changes (CLONE_FS unshared): the
     * program's own chdir() no longer moves it, and `gpuleak snapshot` reads
     * /proc/PID/task/TID/cwd to find where relative names point.  Where
     * unshare is refused (a seccomp filter) the thread simply shares the
     * program's, as before; nothing else depends on it. */
    if (resolved_base[0] == '\0' || unshare(CLONE_FS) != 0)
        return;
    /* A directory removed since cannot hold snapshots either; the thread
     * then keeps the copy of the program's it has. */
    if (chdir(resolved_base) != 0)
        return;
}

/* The value of the first rank variable set, in *rank; false if none is. */
static bool rank_from_environment(uint32_t *rank)
{
    /* torchrun's RANK, then the global ranks of MPI launchers (Open MPI,
     * PMIx, MPICH/Intel MPI's PMI) before Slurm's: an mpirun inside an
     * sbatch script inherits SLURM_PROCID=0 on every rank.  LOCAL_RANK
     * last: it repeats on every node, and job scripts often export it next
     * to a launcher's global rank. */
    static const char *const vars[] = {"RANK",     "OMPI_COMM_WORLD_RANK", "PMIX_RANK",
                                       "PMI_RANK", "SLURM_PROCID",         "LOCAL_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        long v;
        if (gl_parse_long(getenv(vars[i]), 0, 0x7fffffff, &v)) {
            *rank = (uint32_t)v;
            return true;
        }
    }
    return false;
}

uint32_t gl_rank(void)
{
    uint32_t rank = 0;
    rank_from_environment(&rank);
    return rank;
}

bool gl_rank_set(void)
{
    uint32_t rank;
    return rank_from_environment(&rank);
}

const char *gl_outfile_pattern(void) { return resolved; }

/* Host names are used in file names: keep only characters that are safe in
 * one path component, and never let one be "", "." or ".." (a host name is
 * whatever sethostname() was given, and "%h/" must not lead upwards). */
static void sanitize_component(char *s)
{
    if (*s == '\0') {
        strcpy(s, "unknown");
        return;
    }
    if (*s == '.')
        *s = '_';
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '-' || *s == '_' || *s == '.'))
            *s = '_';
}

bool gl_outfile_expand(uint64_t n, char *buf, size_t size)
{
    return gl_outfile_expand_pattern(resolved, n, buf, size);
}

bool gl_outfile_expand_pattern(const char *pattern, uint64_t n, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (const char *p = pattern; *p; p++) {
        char tmp[256];
        if (*p != '%' || p[1] == '\0') {
            tmp[0] = *p;
            tmp[1] = '\0';
        } else {
            switch (*++p) {
            case 'p': snprintf(tmp, sizeof tmp, "%d", (int)getpid()); break;
            case 'n': snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)n); break;
            case 'r': snprintf(tmp, sizeof tmp, "%u", gl_rank()); break;
            case 't': snprintf(tmp, sizeof tmp, "%lld", (long long)time(NULL)); break;
            case 'h':
                if (gethostname(tmp, sizeof tmp - 1) != 0)
                    strcpy(tmp, "unknown");
                tmp[sizeof tmp - 1] = '\0';
                sanitize_component(tmp);
                break;
            case '%': strcpy(tmp, "%"); break;
            default: /* unknown conversion: keep it literally */
                tmp[0] = '%';
                tmp[1] = *p;
                tmp[2] = '\0';
                break;
            }
        }
        if (!append(buf, size, &len, tmp))
            return false;
    }
    const char *slash = strrchr(buf, '/');
    const char *base = slash ? slash + 1 : buf;
    return *base != '\0' && strcmp(base, ".") != 0 && strcmp(base, "..") != 0;
}

/* (A resolved pattern's directory part is escaped: a '%' there is "%%".) */
bool gl_outfile_pattern_has(const char *pattern, char conversion)
{
    for (const char *p = pattern; *p; p++)
        if (*p == '%' && p[1] != '\0') {
            if (p[1] == conversion)
                return true;
            p++;
        }
    return false;
}

bool gl_outfile_numbered(void) { return gl_outfile_pattern_has(resolved, 'n'); }

bool gl_outfile_next_name(uint64_t *counter, char *path, size_t size, uint64_t *index)
{
    bool numbered = gl_outfile_numbered();
    for (int tries = 0; tries < 1000; tries++) {
        *index = (*counter)++;
        if (!gl_outfile_expand(*index, path, size))
            return false;
        struct stat st;
        if (!numbered || IO.fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) != 0)
            return true;
    }
    return false;
}

/* A directory reached through a symlink that belongs to another user (not
 * us, not root) was planted by someone who can write where it lives: a
 * shared /tmp.  Writing through it would put our file wherever they chose,
 * so refuse, as the kernel's fs.protected_symlinks does for files.  Our own
 * symlinks (a ~/snaps pointing at scratch space) are followed. */
static bool dir_path_trusted(const char *dir)
{
    char buf[GL_PATH_MAX];
    size_t len = strlen(dir);
    if (len >= sizeof buf)
        return true; /* opening it fails anyway */
    memcpy(buf, dir, len + 1);
    uid_t me = geteuid();
    for (size_t i = 1; i <= len; i++) {
        if (i < len && buf[i] != '/')
            continue;
        char save = buf[i];
        buf[i] = '\0';
        struct stat st;
        bool planted = IO.lstat(buf, &st) == 0 && S_ISLNK(st.st_mode) && st.st_uid != me && st.st_uid != 0;
        buf[i] = save;
        if (planted)
            return false;
    }
    return true;
}

/* A stream spelled out (/dev/stdout, /dev/fd/N, ...): a descriptor of our
 * own on what that descriptor of the process is open on now, to be written
 * at its offset, as the program's own writes are.  Its flags (blocking or
 * not) are the program's, and stay so. */
static int open_stream(const char *path)
{
    int fd = fcntl(gl_out_stream_fd(path), F_DUPFD_CLOEXEC, 0);
    if (fd >= 0 && (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDONLY) {
        IO.close(fd);
        errno = EBADF; /* open for reading only */
        return -1;
    }
    return fd;
}

/* A device or a FIFO at the name, opened as it is: no O_CREAT, no O_TRUNC,
 * and O_NONBLOCK, so that a FIFO with no reader is refused (ENXIO) rather
 * than waited for; gl_outfile_write waits, bounded, for a slow one. */
static int open_device(const char *path)
{
    int fd = IO.open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0);
    struct stat st;
    if (fd >= 0 && (IO.fstat(fd, &st) != 0 || !gl_out_in_place_mode(st.st_mode))) {
        IO.close(fd);
        fd = -1;
        errno = EEXIST; /* something else was put there since it was looked at */
    }
    return fd;
}

/* dir_path_trusted for the directory part of path ("" and "/" are). */
static bool parent_trusted(const char *path)
{
    char dir[GL_PATH_MAX];
    const char *slash = strrchr(path, '/');
    size_t len = slash ? (size_t)(slash - path) : 0;
    if (len == 0 || len >= sizeof dir)
        return true;
    memcpy(dir, path, len);
    dir[len] = '\0';
    return dir_path_trusted(dir);
}

/* final_path's kind (common/output_target.h): true when it is written in
 * place (of->fd open on it), false to go on with a temporary, or false with
 * of->fd -1 and errno set when it is refused or cannot be opened. */
static bool open_in_place(struct gl_outfile *of, const char *final_path, bool *refused)
{
    struct stat st;
    bool exists = IO.lstat(final_path, &st) == 0;
    enum gl_out_kind kind = gl_out_kind_of(final_path, exists ? &st : NULL);
    *refused = false;
    switch (kind) {
    case GL_OUT_FILE: return false;
    case GL_OUT_STREAM: of->fd = open_stream(final_path); break;
    case GL_OUT_IN_PLACE:
        /* through a directory another user's symlink leads to: refused,
         * as for a file (dir_path_trusted) */
        if (parent_trusted(final_path))
            of->fd = open_device(final_path);
        else
            errno = ELOOP;
        break;
    case GL_OUT_SYMLINK: errno = ELOOP; break; /* "Too many levels of symbolic links" */
    case GL_OUT_DIRECTORY: errno = EISDIR; break;
    case GL_OUT_SOCKET: errno = ENXIO; break;
    }
    of->in_place = of->fd >= 0;
    *refused = !of->in_place;
    return of->in_place;
}

bool gl_outfile_open(struct gl_outfile *of, const char *final_path)
{
    of->fd = -1;
    of->dirfd = -1;
    size_t len = strlen(final_path);
    if (len >= sizeof of->final_path) {
        errno = ENAMETOOLONG;
        return false;
    }
    memcpy(of->final_path, final_path, len + 1);
    of->final_name = of->final_path;
    of->in_place = false;
    bool refused;
    if (open_in_place(of, final_path, &refused))
        return true;
    if (refused)
        return false;
    char *slash = strrchr(of->final_path, '/');
    if (slash == NULL) {
        of->dirfd = IO.open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
        of->final_name = of->final_path;
    } else {
        *slash = '\0';
        if (dir_path_trusted(of->final_path))
            of->dirfd = IO.open(slash == of->final_path ? "/" : of->final_path,
                                O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
        else
            errno = ELOOP; /* "Too many levels of symbolic links" */
        *slash = '/';
        of->final_name = slash + 1;
    }
    if (of->dirfd < 0)
        return false;
    /* A name nobody else can predict or race us to: pid + time + counter. */
    static _Atomic unsigned counter;
    for (int attempt = 0; attempt < 16; attempt++) {
        snprintf(of->tmp_name, sizeof of->tmp_name, ".gpuleak.tmp.%d.%llx.%u", (int)getpid(),
                 (unsigned long long)gl_mono_ns(), counter++);
        of->fd = IO.openat(of->dirfd, of->tmp_name,
                           O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (of->fd >= 0)
            return true;
        if (errno != EEXIST)
            break;
    }
    int saved = errno;
    IO.close(of->dirfd);
    of->dirfd = -1;
    errno = saved;
    return false;
}

/* A FIFO written in place, full: waits until its reader takes some, at
 * most GL_OUTFILE_STALL_MS without progress (a reader that stopped must not
 * keep the program from exiting).  false on timeout or error. */
static bool wait_writable(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    for (;;) {
        int r = poll(&p, 1, GL_OUTFILE_STALL_MS);
        if (r > 0)
            return true;
        if (r == 0 || errno != EINTR)
            return false;
    }
}

static int write_all(int fd, const char *p, size_t n)
{
    size_t off = 0;
    while (off < n) {
        ssize_t w = IO.write(fd, p + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (!wait_writable(fd))
                return ETIMEDOUT; /* no progress, or poll failed: given up */
            continue;
        }
        if (w <= 0)
            return w < 0 ? errno : EIO;
        off += (size_t)w;
    }
    return 0;
}

int gl_outfile_write(int fd, const void *buf, size_t n)
{
    /* A FIFO or a pipe written in place whose reader went away: EPIPE,
     * and the SIGPIPE that comes with it would kill the program.  Blocked
     * while writing, and the one this write raised taken back (not one the
     * program had pending already). */
    sigset_t pipe_set, old, pending;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    bool was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
    int rc = write_all(fd, buf, n);
    if (rc == EPIPE && !was_pending) {
        struct timespec now = {0, 0};
        while (sigtimedwait(&pipe_set, NULL, &now) < 0 && errno == EINTR)
            ;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

/* The temporary takes its final name, which must not exist: false with
 * errno EEXIST when it does (the temporary is kept). */
static bool publish(struct gl_outfile *of)
{
    if (IO.renameat2(of->dirfd, of->tmp_name, of->dirfd, of->final_name, RENAME_NOREPLACE) == 0)
        return true;
    if (errno != EINVAL && errno != ENOSYS)
        return false;
    /* Filesystem without RENAME_NOREPLACE: link() also refuses to replace
     * an existing name, then drop the temporary. */
    if (IO.linkat(of->dirfd, of->tmp_name, of->dirfd, of->final_name, 0) != 0)
        return false;
    IO.unlinkat(of->dirfd, of->tmp_name, 0);
    return true;
}

/* Points of->final_path at path, which must be in the same directory as the
 * temporary (a rename cannot move it elsewhere). */
static bool retarget_to(struct gl_outfile *of, const char *path)
{
    size_t dirlen = (size_t)(of->final_name - of->final_path);
    size_t len = strlen(path);
    if (len >= sizeof of->final_path || len <= dirlen || memcmp(path, of->final_path, dirlen) != 0 ||
        strchr(path + dirlen, '/') != NULL)
        return false;
    memcpy(of->final_path, path, len + 1);
    return true;
}

/* The temporary, opened again for writing, if it is still the file we wrote. */
static int reopen_tmp(const struct gl_outfile *of, const struct stat *id)
{
    int fd = IO.openat(of->dirfd, of->tmp_name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0);
    struct stat st;
    if (fd >= 0 && (IO.fstat(fd, &st) != 0 || st.st_dev != id->st_dev || st.st_ino != id->st_ino)) {
        IO.close(fd);
        fd = -1;
    }
    return fd;
}

/* A target written in place is complete once closed. */
static bool commit_in_place(struct gl_outfile *of)
{
    bool ok = IO.close(of->fd) == 0 || errno == EINTR;
    of->fd = -1;
    return ok;
}

bool gl_outfile_commit(struct gl_outfile *of, gl_outfile_rename_fn rename_fn, void *ctx)
{
    if (of->in_place)
        return commit_in_place(of);
    struct stat id;
    bool ok = IO.fstat(of->fd, &id) == 0;
    /* Closed before it gets a final name: a late write error (NFS reports
     * them at close) must not leave a bad file under a snapshot name. */
    ok = IO.close(of->fd) == 0 && ok;
    of->fd = -1;
    for (int tries = 0; ok && !publish(of); tries++) {
        /* The name was free when it was chosen, but another process sharing
         * the pattern (no %p: forked children or ranks exiting together)
         * took it since.  Move on to a name that is free now. */
        ok = false;
        if (errno != EEXIST || rename_fn == NULL || tries >= GL_OUTFILE_RENAME_TRIES)
            break;
        int fd = reopen_tmp(of, &id);
        if (fd < 0)
            break;
        char next[GL_PATH_MAX];
        bool named = rename_fn(ctx, fd, next, sizeof next) && retarget_to(of, next);
        ok = IO.close(fd) == 0 && named;
        errno = EEXIST; /* if we give up here, it is for the name taken */
    }
    int saved = errno;
    if (!ok)
        IO.unlinkat(of->dirfd, of->tmp_name, 0);
    IO.close(of->dirfd);
    of->dirfd = -1;
    errno = saved;
    return ok;
}

void gl_outfile_abort(struct gl_outfile *of)
{
    int saved = errno;
    if (of->fd >= 0)
        IO.close(of->fd);
    if (of->dirfd >= 0) {
        IO.unlinkat(of->dirfd, of->tmp_name, 0);
        IO.close(of->dirfd);
    }
    of->fd = of->dirfd = -1;
    errno = saved;
}
