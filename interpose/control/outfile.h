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
 * existing file (or a planted symlink) is never overwritten or followed. */
#ifndef GL_OUTFILE_H
#define GL_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GL_PATH_MAX 4096

/* Resolves the pattern once (call at activation).  */
void gl_outfile_setup(const char *pattern);

/* On gpuleak's writer thread: makes the directory a relative pattern was
 * resolved against this thread's own working directory, so that
 * /proc/PID/task/TID/cwd names it whatever chdir() the program makes later
 * (`gpuleak snapshot` reads it).  Nothing else on that thread uses relative
 * paths. */
void gl_outfile_pin_cwd(void);

/* Expands the pattern for snapshot number n into buf; false if the result does
 * not fit or expands to an empty file name. */
bool gl_outfile_expand(uint64_t n, char *buf, size_t size);

/* The resolved pattern (absolute unless the fallback is in use); for tests. */
const char *gl_outfile_pattern(void);

/* Rank of this process in a distributed job (RANK, LOCAL_RANK,
 * OMPI_COMM_WORLD_RANK, SLURM_PROCID), else 0. */
uint32_t gl_rank(void);

struct gl_outfile {
    int fd;
    int dirfd;
    char final_path[GL_PATH_MAX];
    char tmp_name[64];
    const char *final_name; /* points into final_path */
};

/* Opens a temporary file next to final_path.  false (errno set) on failure. */
bool gl_outfile_open(struct gl_outfile *of, const char *final_path);
/* Picks another final name when the one chosen was taken meanwhile: writes it
 * to path (it must stay in the same directory) and updates what in the file
 * depends on the name through fd (the temporary, open for writing).  False:
 * no other name. */
typedef bool (*gl_outfile_rename_fn)(void *ctx, int fd, char *path, size_t size);
#define GL_OUTFILE_RENAME_TRIES 1000

/* Renames the temporary to its final name; false (errno set) if that name is
 * taken or the rename fails.  With rename_fn, a taken name is replaced by the
 * one it picks, up to GL_OUTFILE_RENAME_TRIES times; of->final_path is the
 * name used.  Closes the file either way. */
bool gl_outfile_commit(struct gl_outfile *of, gl_outfile_rename_fn rename_fn, void *ctx);
/* Removes the temporary file. */
void gl_outfile_abort(struct gl_outfile *of);

#endif
