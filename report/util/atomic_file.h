/* Writing an output file whole or not at all: the bytes go to a new
 * temporary beside it (mkstemp: created 0600 with O_EXCL, so a planted
 * file or symlink of that name is never opened), then rename() puts it in
 * place, which replaces a symlink at the path instead of writing through
 * it.  A reader never sees half a file, and a failed write leaves the old
 * one as it was. */
#ifndef GPULEAK_ATOMIC_FILE_H
#define GPULEAK_ATOMIC_FILE_H

#include <stddef.h>

/* Writes buf[0..len) to path.  0, or -1 with the reason (strerror's words,
 * without the path) in err and no temporary left behind. */
int afile_write(const char *path, const void *buf, size_t len, char *err, size_t errlen);

#endif
