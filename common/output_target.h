/* What an output file's name may denote, one rule for every file gpuleak
 * writes: gpuleak-report's --output, --html, --torch-snapshot, --pprof and
 * --verdict (report/util/atomic_file.c), the library's snapshots
 * (interpose/control/outfile.c), gpuleak check --json=FILE
 * (tools/launcher/check_files.c, write_json_target) and gpuleak run
 * --output (tools/launcher/parse.c, target_of).  docs/reliability.md, "Output
 * targets", states it for users:
 *
 *   - nothing there, or a regular file: the bytes go to a new temporary
 *     beside it (0600, O_EXCL), renamed into place: whole or not at all;
 *   - a character or block device or a FIFO (/dev/null, a pipe made with
 *     mkfifo): opened as it is, with no O_CREAT or O_TRUNC, and written in
 *     place; never renamed over, so root's `--output /dev/null` leaves
 *     /dev/null a device;
 *   - a stream spelled out -- /dev/stdout, /dev/stderr, /dev/fd/N,
 *     /proc/self/fd/N -- is that descriptor of the writing process, written
 *     at its own offset (valgrind's --xml-fd), whatever it is open on: a
 *     terminal, a pipe, a socket or a file;
 *   - a symbolic link is refused, whatever it points to: the name a user
 *     gives for a stream is the spelled-out one above, and a link may have
 *     been planted;
 *   - a directory or a socket is refused (open() cannot write a socket).
 *
 * Header-only, as size_parse.h, so that the library uses it without linking
 * the reporter; the library's file-system calls stay its own (they go
 * through a table its unit test can fail). */
#ifndef GL_OUTPUT_TARGET_H
#define GL_OUTPUT_TARGET_H

#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

enum gl_out_kind {
    GL_OUT_FILE,      /* absent or a regular file: temporary, then rename */
    GL_OUT_IN_PLACE,  /* a device or a FIFO: opened as it is */
    GL_OUT_STREAM,    /* /dev/stdout, /dev/fd/N, ...: that descriptor */
    GL_OUT_SYMLINK,   /* refused */
    GL_OUT_DIRECTORY, /* refused */
    GL_OUT_SOCKET,    /* refused */
};

/* The descriptor a spelled-out stream name denotes (/dev/stdout 1,
 * /dev/stderr 2, /dev/fd/N and /proc/self/fd/N N), or -1 for any other
 * name.  Only these exact spellings: what they are is asked of the
 * descriptor, never of the link the file system has under that name. */
static inline int gl_out_stream_fd(const char *path)
{
    if (strcmp(path, "/dev/stdout") == 0)
        return 1;
    if (strcmp(path, "/dev/stderr") == 0)
        return 2;
    const char *n;
    if (strncmp(path, "/dev/fd/", 8) == 0)
        n = path + 8;
    else if (strncmp(path, "/proc/self/fd/", 14) == 0)
        n = path + 14;
    else
        return -1;
    if (*n == '\0' || strlen(n) > 9)
        return -1;
    int fd = 0;
    for (; *n; n++) {
        if (*n < '0' || *n > '9')
            return -1;
        fd = fd * 10 + (*n - '0');
    }
    return fd;
}

/* The kind of target path is, from its lstat() (lst NULL: it does not
 * exist, or cannot be looked at, and creating it will say why). */
static inline enum gl_out_kind gl_out_kind_of(const char *path, const struct stat *lst)
{
    if (gl_out_stream_fd(path) >= 0)
        return GL_OUT_STREAM;
    if (lst == NULL || S_ISREG(lst->st_mode))
        return GL_OUT_FILE;
    if (S_ISLNK(lst->st_mode))
        return GL_OUT_SYMLINK;
    if (S_ISDIR(lst->st_mode))
        return GL_OUT_DIRECTORY;
    if (S_ISCHR(lst->st_mode) || S_ISBLK(lst->st_mode) || S_ISFIFO(lst->st_mode))
        return GL_OUT_IN_PLACE;
    return GL_OUT_SOCKET;
}

/* Whether a descriptor opened on an in-place target (its fstat) is still
 * one: a device or a FIFO.  Else the name was changed between the lstat
 * and the open, and the file is not written. */
static inline bool gl_out_in_place_mode(mode_t mode)
{
    return S_ISCHR(mode) || S_ISBLK(mode) || S_ISFIFO(mode);
}

/* Why a target of kind k is refused, after "is ": NULL when it is not. */
static inline const char *gl_out_refusal(enum gl_out_kind k)
{
    switch (k) {
    case GL_OUT_SYMLINK:
        return "a symbolic link, not followed (name the file itself; a stream is "
               "/dev/stdout, /dev/stderr or /dev/fd/N)";
    case GL_OUT_DIRECTORY: return "a directory";
    case GL_OUT_SOCKET: return "a socket, which cannot be opened";
    default: return NULL;
    }
}

#endif
