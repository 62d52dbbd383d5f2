/* check's files (the script's mkdir -p, cd && pwd, rm -rf and
 * write_json_target). */
#include "check_files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "launcher.h"
#include "parse.h"
#include "strbuf.h"

/* One entry of getdents64(2), as the kernel lays it out. */
struct dirent64_raw {
    unsigned long long ino;
    long long off;
    unsigned short reclen;
    unsigned char type;
    char name[];
};

static void remove_at(int parent, const char *name, int depth);

static void empty_dir(int fd, int depth)
{
    char buf[4096] __attribute__((aligned(8)));
    long n;
    while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
        for (long off = 0; off < n;) {
            struct dirent64_raw *e = (struct dirent64_raw *)(buf + off);
            off += e->reclen;
            if (strcmp(e->name, ".") != 0 && strcmp(e->name, "..") != 0)
                remove_at(fd, e->name, depth);
        }
    }
}

static void remove_at(int parent, const char *name, int depth)
{
    if (unlinkat(parent, name, 0) == 0 || depth <= 1)
        return;
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    empty_dir(fd, depth - 1);
    close(fd);
    unlinkat(parent, name, AT_REMOVEDIR);
}

void remove_dir_in_handler(const char *dir, int depth)
{
    remove_at(AT_FDCWD, dir, depth + 1);
}

char *coreutils_quote(const char *name)
{
    const char *vars[] = {"LC_ALL", "LC_MESSAGES", "LANG"};
    const char *loc = "";
    for (size_t i = 0; i < 3; i++) {
        const char *v = getenv(vars[i]);
        if (v != NULL && *v != '\0') {
            loc = v;
            break;
        }
    }
    bool utf8 = strcasestr(loc, "utf-8") != NULL || strcasestr(loc, "utf8") != NULL;
    return utf8 ? str_printf("\u2018%s\u2019", name) : str_printf("'%s'", name);
}

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

bool make_dirs(const char *dir)
{
    char *path = str_printf("%s", dir);
    bool ok = true;
    for (char *p = path + 1; ok; p++) {
        bool end = *p == '\0';
        if (!end && *p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0777) != 0 && !(errno == EEXIST && is_dir(path))) {
            /* (as mkdir -p says it: the component, a file in the way of
             * a parent "Not a directory") */
            int err = errno == EEXIST && !end ? ENOTDIR : errno;
            char *q = coreutils_quote(path);
            fprintf(stderr, "mkdir: cannot create directory %s: %s\n", q, strerror(err));
            free(q);
            ok = false;
        }
        if (end)
            break;
        *p = '/';
    }
    free(path);
    return ok;
}


/* path with '.', '..' and repeated '/' read as text. */
static char *canonical_text(const char *path)
{
    struct strbuf b = {0};
    char *copy = str_printf("%s", path), *save = NULL;
    for (char *c = strtok_r(copy, "/", &save); c != NULL; c = strtok_r(NULL, "/", &save)) {
        if (strcmp(c, ".") == 0)
            continue;
        if (strcmp(c, "..") == 0) {
            char *slash = b.s ? strrchr(b.s, '/') : NULL;
            if (slash != NULL) {
                *slash = '\0';
                b.len = (size_t)(slash - b.s);
            }
            continue;
        }
        sb_addc(&b, '/');
        sb_adds(&b, c);
    }
    free(copy);
    if (b.len == 0)
        sb_addc(&b, '/');
    return sb_take(&b);
}

char *logical_abspath(const char *dir)
{
    if (!is_dir(dir) || access(dir, X_OK) != 0)
        return NULL;
    char *base = dir[0] == '/' ? str_printf("%s", dir) : NULL;
    if (base == NULL) {
        char *pwd = shell_pwd("/");
        base = str_printf("%s/%s", pwd, dir);
        free(pwd);
    }
    char *abs = canonical_text(base);
    free(base);
    if (!is_dir(abs)) { /* (a '..' after a link: the physical name) */
        free(abs);
        abs = realpath(dir, NULL);
    }
    return abs;
}

static bool write_all(int fd, const char *text)
{
    size_t len = strlen(text), done = 0;
    while (done < len) {
        ssize_t n = write(fd, text + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        done += (size_t)n;
    }
    return true;
}

char *dir_name(const char *p)
{
    size_t len = strlen(p);
    while (len > 1 && p[len - 1] == '/')
        len--;
    while (len > 0 && p[len - 1] != '/')
        len--;
    if (len == 0)
        return str_printf(".");
    while (len > 1 && p[len - 1] == '/')
        len--;
    return str_printf("%.*s", (int)len, p);
}

/* A new 0600 file beside path, renamed over it once written whole. */
static bool replace_file(const char *text, const char *path)
{
    char *dir = dir_name(path);
    char *tmp = str_printf("%s/.gpuleak-check.XXXXXX", dir);
    free(dir);
    int fd = mkstemp(tmp);
    bool ok = fd >= 0;
    if (ok) {
        ok = write_all(fd, text);
        ok = close(fd) == 0 && ok;
        ok = ok && rename(tmp, path) == 0;
        if (!ok)
            unlink(tmp);
    }
    free(tmp);
    return ok;
}

char *write_json_target(const char *text, const char *path)
{
    struct target t = target_of(path);
    bool ok;
    switch (t.kind) {
    case TARGET_REFUSED: return str_printf("is %s", t.why);
    case TARGET_NOT_A_FILE: return str_printf("not a file name");
    case TARGET_STREAM: ok = write_all(t.fd, text); break;
    case TARGET_IN_PLACE: {
        int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
        ok = fd >= 0 && write_all(fd, text);
        if (fd >= 0)
            ok = close(fd) == 0 && ok;
        break;
    }
    default: ok = replace_file(text, path); break;
    }
    return ok ? NULL : str_printf("cannot write it");
}
