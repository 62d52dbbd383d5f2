/* The launcher's names and the files it finds beside itself. */
#include "launcher.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shquote.h"

static struct launcher self;

/* The binary with every link resolved (/proc/self/exe, as readlink -f
 * "$0" gave the script); argv[0] when /proc is missing. */
static char *path_of_exe(const char *argv0)
{
    char *exe = realpath("/proc/self/exe", NULL);
    if (exe == NULL)
        exe = realpath(argv0, NULL);
    if (exe == NULL)
        exe = str_printf("%s", argv0);
    return exe;
}

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        return str_printf(".");
    if (slash == path)
        return str_printf("/");
    return str_printf("%.*s", (int)(slash - path), path);
}

void launcher_init(const char *argv0)
{
    self.argv0 = argv0;
    const char *slash = strrchr(argv0, '/');
    self.prog = slash ? slash + 1 : argv0;
    self.exe = path_of_exe(argv0);
    self.here = dir_of(self.exe);
}

const struct launcher *launcher(void)
{
    return &self;
}

noreturn void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg;
    if (vasprintf(&msg, fmt, ap) < 0)
        msg = NULL;
    va_end(ap);
    fprintf(stderr, "%s: %s\n", self.prog ? self.prog : "gpuleak", msg ? msg : fmt);
    exit(2);
}

char *str_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s;
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0) {
        fputs("gpuleak: out of memory\n", stderr);
        exit(2);
    }
    return s;
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int is_executable_file(const char *path)
{
    return is_file(path) && access(path, X_OK) == 0;
}

char *find_lib(void)
{
    const char *env = getenv("GPULEAK_LIB");
    if (env != NULL && *env != '\0')
        return str_printf("%s", env);
    static const char *const rel[] = {"../lib/libgpuleak.so", "../lib/gpuleak/libgpuleak.so"};
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        char *cand = str_printf("%s/%s", self.here, rel[i]);
        char *real = is_file(cand) ? realpath(cand, NULL) : NULL;
        free(cand);
        if (real != NULL)
            return real;
    }
    die("cannot find libgpuleak.so next to %s (set GPULEAK_LIB)", self.here);
}

char *search_path(const char *name)
{
    const char *path = getenv("PATH");
    if (path == NULL)
        return NULL;
    for (const char *p = path;; p++) {
        const char *end = strchrnul(p, ':');
        char *cand = end == p ? str_printf("./%s", name) : str_printf("%.*s/%s", (int)(end - p), p, name);
        if (is_executable_file(cand))
            return cand;
        free(cand);
        if (*end == '\0')
            return NULL;
        p = end;
    }
}

char *report_bin(void)
{
    char *rep = str_printf("%s/gpuleak-report", self.here);
    if (access(rep, X_OK) == 0)
        return rep;
    free(rep);
    rep = search_path("gpuleak-report");
    if (rep == NULL)
        die("cannot find gpuleak-report");
    return rep;
}

char *libexec_tool(const char *what, const char *rel)
{
    char *path = str_printf("%s/../libexec/gpuleak/%s", self.here, rel);
    if (access(path, X_OK) != 0)
        die("%s: cannot find %s (install gpuleak completely)", what, path);
    return path;
}

noreturn void exec_or_die(const char *path, char *const argv[])
{
    execv(path, argv);
    die("cannot run %s: %s", path, strerror(errno));
}

char *self_cmd(void)
{
    if (strchr(self.argv0, '/') != NULL)
        return shell_quote(self.argv0);
    return str_printf("%s", self.prog);
}

char *shell_pwd(const char *fallback)
{
    const char *pwd = getenv("PWD");
    struct stat a, b;
    if (pwd != NULL && pwd[0] == '/' && stat(pwd, &a) == 0 && stat(".", &b) == 0 && a.st_dev == b.st_dev &&
        a.st_ino == b.st_ino)
        return str_printf("%s", pwd);
    char *cwd = getcwd(NULL, 0);
    return cwd ? cwd : str_printf("%s", fallback);
}

char *file_first_line(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return NULL;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, f);
    fclose(f);
    if (n < 0) {
        free(line);
        return str_printf("%s", "");
    }
    if (n > 0 && line[n - 1] == '\n')
        line[n - 1] = '\0';
    return line;
}
