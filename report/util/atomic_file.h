/* Writing an output file by the one rule of common/output_target.h
 * (docs/reliability.md, "Output targets").  A regular file, or none: the
 * bytes go to a new temporary beside it (mkstemp: created 0600 with O_EXCL,
 * so a planted file or symlink of that name is never opened), then rename()
 * puts it in place: a reader never sees half a file, and a failed write
 * leaves the old one as it was.  A device or a FIFO is written in place,
 * never renamed over (root's /dev/null stays a device); /dev/stdout,
 * /dev/stderr, /dev/fd/N and /proc/self/fd/N are those descriptors; a
 * symlink, a directory or a socket at the path is refused. */
#ifndef GPULEAK_ATOMIC_FILE_H
#define GPULEAK_ATOMIC_FILE_H

#include <stddef.h>

/* Writes buf[0..len) to path.  0, or -1 with the reason in err (after the
 * path: "cannot write: " or "write error: " and strerror's words, or what
 * the target is) and no temporary left behind. */
int afile_write(const char *path, const void *buf, size_t len, char *err, size_t errlen);

#endif
