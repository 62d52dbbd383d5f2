/* Preloaded before libgpuleak: write() to a gpuleak temporary file
 * (.gpuleak.tmp.*) fails with ENOSPC after ENOSPC_AFTER bytes (default 0),
 * as on a full filesystem; every other write is untouched.  For
 * tests/t_hostile_output.sh where a real full filesystem (a tmpfs) cannot
 * be mounted. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int is_gpuleak_tmp(int fd)
{
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n <= 0)
        return 0;
    path[n] = '\0';
    return strstr(path, "/.gpuleak.tmp.") != NULL;
}

ssize_t write(int fd, const void *buf, size_t len)
{
    static long budget = -1;
    if (budget < 0) {
        const char *v = getenv("ENOSPC_AFTER");
        budget = v ? atol(v) : 0;
    }
    if (fd > 2 && is_gpuleak_tmp(fd)) {
        off_t pos = lseek(fd, 0, SEEK_CUR);
        if (pos >= budget) {
            errno = ENOSPC;
            return -1;
        }
        if ((off_t)len > budget - pos)
            len = (size_t)(budget - pos);
    }
    return syscall(SYS_write, fd, buf, len);
}
