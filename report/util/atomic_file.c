#include "util/atomic_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/xalloc.h"

static int write_all(int fd, const unsigned char *p, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

int afile_write(const char *path, const void *buf, size_t len, char *err, size_t errlen)
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
    if (rc == 0 && rename(tmp, path) != 0) {
        rc = -1;
        saved = errno;
        what = "cannot write";
    }
    if (rc != 0) {
        snprintf(err, errlen, "%s: %s", what, strerror(saved ? saved : EIO));
        unlink(tmp);
    }
    free(tmp);
    return rc;
}
