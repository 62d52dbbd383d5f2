#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "internal.h"
#include "log.h"

static char resolved[GL_PATH_MAX]; /* absolute pattern, a file pattern */

void gl_outfile_setup(const char *pattern)
{
    static atomic_bool warned;
    char joined[GL_PATH_MAX];
    size_t plen = strlen(pattern);
    bool is_dir = plen > 0 && pattern[plen - 1] == '/';
    struct stat st;
    if (!is_dir && stat(pattern, &st) == 0 && S_ISDIR(st.st_mode))
        is_dir = true;
    int n = snprintf(joined, sizeof joined, "%s%s%s", pattern,
                     is_dir && pattern[plen - 1] != '/' ? "/" : "",
                     is_dir ? GL_DEFAULT_OUTPUT : "");
    if (n < 0 || (size_t)n >= sizeof joined)
        goto fallback;
    if (joined[0] == '/') {
        memcpy(resolved, joined, (size_t)n + 1);
        return;
    }
    char cwd[GL_PATH_MAX];
    if (getcwd(cwd, sizeof cwd) == NULL)
        goto fallback;
    n = snprintf(resolved, sizeof resolved, "%s/%s", cwd, joined);
    if (n < 0 || (size_t)n >= sizeof resolved)
        goto fallback;
    return;
fallback:
    gl_warn_once(&warned, "output pattern too long; using %s in the working directory",
                 GL_DEFAULT_OUTPUT);
    snprintf(resolved, sizeof resolved, "%s", GL_DEFAULT_OUTPUT);
}

uint32_t gl_rank(void)
{
    static const char *const vars[] = {"RANK", "LOCAL_RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        long v;
        if (gl_parse_long(getenv(vars[i]), 0, 0x7fffffff, &v))
            return (uint32_t)v;
    }
    return 0;
}

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
    size_t len = 0;
    buf[0] = '\0';
    for (const char *p = resolved; *p; p++) {
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
        bool planted = lstat(buf, &st) == 0 && S_ISLNK(st.st_mode) && st.st_uid != me && st.st_uid != 0;
        buf[i] = save;
        if (planted)
            return false;
    }
    return true;
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
    char *slash = strrchr(of->final_path, '/');
    if (slash == NULL) {
        of->dirfd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        of->final_name = of->final_path;
    } else {
        *slash = '\0';
        if (dir_path_trusted(of->final_path))
            of->dirfd = open(slash == of->final_path ? "/" : of->final_path,
                             O_RDONLY | O_DIRECTORY | O_CLOEXEC);
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
        of->fd = openat(of->dirfd, of->tmp_name,
                        O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (of->fd >= 0)
            return true;
        if (errno != EEXIST)
            break;
    }
    int saved = errno;
    close(of->dirfd);
    of->dirfd = -1;
    errno = saved;
    return false;
}

bool gl_outfile_commit(struct gl_outfile *of)
{
    bool ok = close(of->fd) == 0;
    of->fd = -1;
    if (ok) {
        ok = renameat2(of->dirfd, of->tmp_name, of->dirfd, of->final_name, RENAME_NOREPLACE) == 0;
        if (!ok && (errno == EINVAL || errno == ENOSYS)) {
            /* Filesystem without RENAME_NOREPLACE: link() also refuses to
             * replace an existing name, then drop the temporary. */
            ok = linkat(of->dirfd, of->tmp_name, of->dirfd, of->final_name, 0) == 0;
            if (ok)
                unlinkat(of->dirfd, of->tmp_name, 0);
        }
    }
    int saved = errno;
    if (!ok)
        unlinkat(of->dirfd, of->tmp_name, 0);
    close(of->dirfd);
    of->dirfd = -1;
    errno = saved;
    return ok;
}

void gl_outfile_abort(struct gl_outfile *of)
{
    int saved = errno;
    if (of->fd >= 0)
        close(of->fd);
    if (of->dirfd >= 0) {
        unlinkat(of->dirfd, of->tmp_name, 0);
        close(of->dirfd);
    }
    of->fd = of->dirfd = -1;
    errno = saved;
}
