/* Snapshot file names and safe, atomic creation.
 *
 * A name comes from the GPULEAK_OUTPUT pattern: %p pid, %h host, %r rank,
 * %n snapshot number within the process, %t unix time, %% a percent sign.  A
 * pattern naming an existing directory (or ending in '/') puts default-named
 * files there.  Relative patterns are resolved against the working directory
 * at the time tracking started, so a program that chdir()s later still writes
 * where the user expects.
 *
 * Files are written to a temporary name in the destination directory (created
 * with O_EXCL|O_NOFOLLOW, mode 0600) and renamed to the final name with
 * RENAME_NOREPLACE: a reader never sees a partial file under a final name, an
 * existing file (or a planted symlink) is never overwritten or followed.
 * Other targets follow common/output_target.h: a device or a FIFO at the
 * name (GPULEAK_OUTPUT=/dev/null, a pipe made with mkfifo) is written in
 * place, never renamed over; /dev/stdout, /dev/stderr, /dev/fd/N and
 * /proc/self/fd/N are that descriptor of the process; a symlink, a
 * directory or a socket at the name is refused. */
#ifndef GL_OUTFILE_H
#define GL_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#define GL_PATH_MAX 4096

/* Resolves the pattern once (call at activation).  A directory part with
 * no conversion that does not exist is said then, once. */
void gl_outfile_setup(const char *pattern);

/* That warning was given: a write failing for the same reason (ENOENT)
 * adds no second line. */
bool gl_outfile_missing_dir_said(void);

/* On gpuleak's writer thread: makes the directory a relative pattern was
 * resolved against this thread's own working directory, so that
 * /proc/PID/task/TID/cwd names it whatever chdir() the program makes later
 * (`gpuleak snapshot` reads it).  Nothing else on that thread uses relative
 * paths. */
void gl_outfile_pin_cwd(void);

/* Expands the pattern for snapshot number n into buf; false if the result does
 * not fit or expands to an empty file name. */
bool gl_outfile_expand(uint64_t n, char *buf, size_t size);

/* The same for another pattern (GPULEAK_METRICS), made absolute by
 * gl_outfile_absolute: the conversions of GPULEAK_OUTPUT, one code. */
bool gl_outfile_expand_pattern(const char *pattern, uint64_t n, char *buf, size_t size);

/* pattern made absolute against the working directory now (the directory's
 * '%' doubled, literal text); false if it does not fit or the working
 * directory is unknown.  An absolute pattern is copied. */
bool gl_outfile_absolute(const char *pattern, char *out, size_t size);

/* Whether pattern (as resolved) has the conversion %<conversion>. */
bool gl_outfile_pattern_has(const char *pattern, char conversion);

/* The resolved pattern (absolute unless the fallback is in use); for tests. */
const char *gl_outfile_pattern(void);

/* Whether the resolved pattern numbers its files (has %n). */
bool gl_outfile_numbered(void);

/* The next snapshot's name: the pattern expanded for number *counter, which
 * is advanced past each number used; with %n in the pattern, numbers whose
 * file exists are skipped (never overwritten), 1000 at most.  *index: the
 * number of the name.  False if no name was found or it does not fit. */
bool gl_outfile_next_name(uint64_t *counter, char *path, size_t size, uint64_t *index);

/* Rank of this process in a distributed job: the first of RANK,
 * OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK, SLURM_PROCID, LOCAL_RANK that
 * is set, else 0. */
uint32_t gl_rank(void);

/* Whether one of those variables is set (a valid number): else the
 * process has no rank, and gl_rank's 0 is only a default. */
bool gl_rank_set(void);

struct gl_outfile {
    int fd;
    int dirfd;
    char final_path[GL_PATH_MAX];
    char tmp_name[64];
    const char *final_name; /* points into final_path */
    /* Written in place (a device, a FIFO or a stream): no temporary, no
     * rename, dirfd -1; the file is not ours to remove later. */
    bool in_place;
};

/* Every file-system call this file makes, through one table (as jemalloc's
 * prof_dump_open_file and prof_dump_write_file hooks), so that a unit test
 * (tests/unit/outfile.c) can make each one fail and check what is left on
 * disk.  Defaults to libc; nothing else changes it. */
struct gl_outfile_io {
    int (*open)(const char *path, int flags, mode_t mode);
    int (*openat)(int dirfd, const char *path, int flags, mode_t mode);
    ssize_t (*write)(int fd, const void *buf, size_t n);
    int (*fstat)(int fd, struct stat *st);
    int (*fstatat)(int dirfd, const char *path, struct stat *st, int flags);
    int (*lstat)(const char *path, struct stat *st);
    int (*renameat2)(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned flags);
    int (*linkat)(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, int flags);
    int (*unlinkat)(int dirfd, const char *path, int flags);
    int (*close)(int fd);
};
extern struct gl_outfile_io gl_outfile_io;

/* Opens a temporary file next to final_path, or final_path itself when it is
 * written in place (of->in_place).  false (errno set) on failure: ELOOP for
 * a symlink at final_path, EISDIR for a directory, ENXIO for a socket or a
 * FIFO nobody reads (a FIFO is opened without waiting for a reader, so the
 * program never waits for one). */
bool gl_outfile_open(struct gl_outfile *of, const char *final_path);
/* Writes all n bytes to fd (the temporary, or the target written in place):
 * 0, or the errno of the failure (EIO when a write wrote nothing; ETIMEDOUT
 * when a FIFO's reader took nothing for GL_OUTFILE_STALL_MS). */
#define GL_OUTFILE_STALL_MS 5000
int gl_outfile_write(int fd, const void *buf, size_t n);
/* Picks another final name when the one chosen was taken meanwhile: writes it
 * to path (it must stay in the same directory) and updates what in the file
 * depends on the name through fd (the temporary, open for writing).  False:
 * no other name. */
typedef bool (*gl_outfile_rename_fn)(void *ctx, int fd, char *path, size_t size);
#define GL_OUTFILE_RENAME_TRIES 1000

/* Renames the temporary to its final name (in place: closes the file);
 * false (errno set) if that name is taken or the rename fails.  With rename_fn, a taken name is replaced by the
 * one it picks, up to GL_OUTFILE_RENAME_TRIES times; of->final_path is the
 * name used.  Closes the file either way. */
bool gl_outfile_commit(struct gl_outfile *of, gl_outfile_rename_fn rename_fn, void *ctx);
/* Removes the temporary file. */
void gl_outfile_abort(struct gl_outfile *of);

#endif
