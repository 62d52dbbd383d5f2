#include "util/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output_target.h"
#include "util/xalloc.h"

static int write_all(int fd, const unsigned char *p, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

/* The descriptor to write a device, FIFO or stream target through, opened
 * without O_CREAT or O_TRUNC (a FIFO's open waits for its reader, as a
 * shell's redirection does); -1 with errno. */
static int open_in_place(const char *path, enum gl_out_kind kind)
{
    struct stat st;
    int fd;
    if (kind == GL_OUT_STREAM) {
        fd = fcntl(gl_out_stream_fd(path), F_DUPFD_CLOEXEC, 0);
        if (fd >= 0 && (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDONLY) {
            close(fd);
            errno = EBADF; /* open for reading only */
            return -1;
        }
        return fd;
    }
    fd = open(path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
    if (fd >= 0 && (fstat(fd, &st) != 0 || !gl_out_in_place_mode(st.st_mode))) {
        close(fd);
        errno = EEXIST; /* replaced by something else since it was looked at */
        return -1;
    }
    return fd;
}

static int write_in_place(const char *path, enum gl_out_kind kind, const void *buf, size_t len, char *err,
                          size_t errlen)
{
    int fd = open_in_place(path, kind);
    if (fd < 0) {
        snprintf(err, errlen, "cannot write: %s", strerror(errno));
        return -1;
    }
    int rc = write_all(fd, buf, len);
    int saved = errno;
    if (close(fd) != 0 && rc == 0 && errno != EINTR) {
        rc = -1;
        saved = errno;
    }
    if (rc != 0)
        snprintf(err, errlen, "write error: %s", strerror(saved));
    return rc;
}

/* The temporary, put in place by rename; when nothing was at the path,
 * without replacing what appeared there since (a FIFO, a device or a link
 * made meanwhile is looked at again).  1: something appeared. */
static int put_in_place(const char *tmp, const char *path, bool existed)
{
    if (!existed) {
        if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
            return 0;
        if (errno == EEXIST)
            return 1;
        if (errno != EINVAL && errno != ENOSYS)
            return -1;
        /* a file system without RENAME_NOREPLACE: as before it */
    }
    return rename(tmp, path) == 0 ? 0 : -1;
}

/* A regular file or none at path: a temporary beside it, renamed over it.
 * 1 when a file of another kind appeared at the path meanwhile. */
static int write_replacing(const char *path, bool existed, const void *buf, size_t len, char *err, size_t errlen)
{
    size_t pl = strlen(path);
    char *tmp = xmalloc(pl + sizeof ".XXXXXX");
    memcpy(tmp, path, pl);
    memcpy(tmp + pl, ".XXXXXX", sizeof ".XXXXXX");
    int fd = mkstemp(tmp); /* 0600, O_EXCL */
    if (fd < 0) {
        snprintf(err, errlen, "cannot write: %s", strerror(errno));
        free(tmp);
        return -1;
    }
    const char *what = "write error";
    int rc = write_all(fd, buf, len);
    if (rc == 0)
        rc = fsync(fd); /* the rename must not land before the bytes */
    int saved = errno;
    if (close(fd) != 0 && rc == 0) {
        rc = -1;
        saved = errno;
    }
    if (rc == 0) {
        rc = put_in_place(tmp, path, existed);
        saved = errno;
        what = "cannot write";
    }
    if (rc != 0)
        unlink(tmp);
    if (rc < 0)
        snprintf(err, errlen, "%s: %s", what, strerror(saved ? saved : EIO));
    free(tmp);
    return rc;
}

int afile_write(const char *path, const void *buf, size_t len, char *err, size_t errlen)
{
    /* Twice at most: a second look when a file appeared at an empty path
     * between the look and the rename. */
    for (int look = 0; look < 2; look++) {
        struct stat st;
        bool exists = lstat(path, &st) == 0;
        enum gl_out_kind kind = gl_out_kind_of(path, exists ? &st : NULL);
        const char *refusal = gl_out_refusal(kind);
        if (refusal != NULL) {
            snprintf(err, errlen, "cannot write: is %s", refusal);
            return -1;
        }
        if (kind != GL_OUT_FILE)
            return write_in_place(path, kind, buf, len, err, errlen);
        int rc = write_replacing(path, exists, buf, len, err, errlen);
        if (rc <= 0)
            return rc;
    }
    snprintf(err, errlen, "cannot write: %s", strerror(EEXIST));
    return -1;
}
