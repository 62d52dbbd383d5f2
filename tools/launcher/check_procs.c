/* check's processes and their snapshots (the script's running_under,
 * wait_started, final_snapshots, exec_snapshots and unjudged_processes). */
#include "check_procs.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "launcher.h"
#include "proc.h"

static bool all_digits(const char *s)
{
    return *s != '\0' && strspn(s, "0123456789") == strlen(s);
}

/* Whether the environ block (len bytes of NUL-ended entries) has the
 * entry `want` and an LD_PRELOAD naming libgpuleak. */
static bool environ_matches(const char *env, size_t len, const char *want)
{
    bool output = false, preload = false;
    for (size_t i = 0; i < len; i += strlen(env + i) + 1) {
        const char *e = env + i;
        output |= strcmp(e, want) == 0;
        preload |= strncmp(e, "LD_PRELOAD=", 11) == 0 && strstr(e + 11, "libgpuleak") != NULL;
    }
    return output && preload;
}

struct strv running_under(const char *pattern)
{
    struct strv pids = {0};
    glob_t g;
    if (glob("/proc/[0-9]*/environ", 0, NULL, &g) != 0)
        return pids;
    char *want = str_printf("GPULEAK_OUTPUT=%s", pattern);
    char self[32];
    snprintf(self, sizeof self, "%d", (int)getpid());
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char *pid = str_printf("%s", g.gl_pathv[i] + strlen("/proc/"));
        *strchr(pid, '/') = '\0';
        size_t len = 0;
        char *env = strcmp(pid, self) == 0 ? NULL : read_proc(g.gl_pathv[i], &len);
        if (env != NULL && environ_matches(env, len, want))
            sv_push(&pids, pid);
        free(env);
        free(pid);
    }
    free(want);
    globfree(&g);
    return pids;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void nap(void)
{
    struct timespec t = {0, 50 * 1000 * 1000};
    nanosleep(&t, NULL);
}

struct strv wait_started(const char *pattern, double limit)
{
    double start = now_s();
    for (;;) {
        struct strv pids = running_under(pattern);
        if (pids.n == 0) {
            /* Once more, a moment later: a process inside execve has, for
             * an instant, no environment to read. */
            nap();
            pids = running_under(pattern);
            if (pids.n == 0)
                return pids;
        }
        if (now_s() - start >= limit)
            return pids;
        sv_free(&pids);
        nap();
    }
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

struct strv dir_names(const char *dir, const char *pattern)
{
    struct strv names = {0};
    DIR *d = opendir(dir);
    if (d == NULL)
        return names;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        if (fnmatch(pattern, e->d_name, 0) == 0 && fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISREG(st.st_mode))
            sv_push(&names, e->d_name);
    }
    closedir(d);
    if (names.n > 1)
        qsort(names.v, names.n, sizeof *names.v, by_name);
    return names;
}

/* The PID and N of NAME = PREFIXPID.N.snap, or false. */
static bool snapshot_numbers(const char *name, const char *prefix, char **pid, char **n)
{
    size_t plen = strlen(prefix);
    if (strncmp(name, prefix, plen) != 0)
        return false;
    const char *p = name + plen;
    size_t a = strspn(p, "0123456789");
    if (a == 0 || p[a] != '.')
        return false;
    size_t b = strspn(p + a + 1, "0123456789");
    if (b == 0 || strcmp(p + a + 1 + b, ".snap") != 0)
        return false;
    *pid = str_printf("%.*s", (int)a, p);
    *n = str_printf("%.*s", (int)b, p + a + 1);
    return true;
}

/* The last two dot-separated numbers of a snapshot path: pid, then N. */
static void path_numbers(const char *s, long long *pid, long long *n)
{
    const char *snap = strrchr(s, '.');
    const char *dot = snap;
    while (dot > s && dot[-1] != '.')
        dot--;
    *n = atoll(dot);
    const char *p = dot > s ? dot - 1 : s;
    while (p > s && p[-1] != '.')
        p--;
    *pid = atoll(p);
}

static int by_pid_then_n(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    long long px, nx, py, ny;
    path_numbers(x, &px, &nx);
    path_numbers(y, &py, &ny);
    if (px != py)
        return px < py ? -1 : 1;
    if (nx != ny)
        return nx < ny ? -1 : 1;
    return strcmp(x, y);
}

void sort_snapshots(struct strv *snaps)
{
    if (snaps->n > 1)
        qsort(snaps->v, snaps->n, sizeof *snaps->v, by_pid_then_n);
}

struct strv final_snapshots(const char *dir, const struct strv *before, const char *prefix)
{
    char *glob_pat = str_printf("%s*.*.snap", prefix);
    struct strv names = dir_names(dir, glob_pat);
    free(glob_pat);
    struct strv all = {0};
    for (size_t i = 0; i < names.n; i++) {
        char *pid, *n;
        if (sv_has(before, names.v[i]) || !snapshot_numbers(names.v[i], prefix, &pid, &n))
            continue;
        char *path = str_printf("%s/%s%s.%s.snap", dir, prefix, pid, n);
        sv_push(&all, path);
        free(path);
        free(pid);
        free(n);
    }
    sv_free(&names);
    sort_snapshots(&all);
    struct strv last = {0};
    for (size_t i = 0; i < all.n; i++) {
        long long p, n, p2, n2;
        path_numbers(all.v[i], &p, &n);
        if (i + 1 < all.n) {
            path_numbers(all.v[i + 1], &p2, &n2);
            if (p2 == p)
                continue;
        }
        sv_push(&last, all.v[i]);
    }
    sv_free(&all);
    return last;
}


static bool is_regular(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The marks in pending (regular files, followed as [ -f ] does) whose
 * names match the glob, in name order. */
static struct strv marks(const char *pending, const char *pattern)
{
    struct strv out = {0};
    struct strv names = {0};
    DIR *d = opendir(pending);
    if (d == NULL)
        return out;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.' && fnmatch(pattern, e->d_name, 0) == 0)
            sv_push(&names, e->d_name);
    closedir(d);
    if (names.n > 1)
        qsort(names.v, names.n, sizeof *names.v, by_name);
    for (size_t i = 0; i < names.n; i++) {
        char *path = str_printf("%s/%s", pending, names.v[i]);
        if (is_regular(path))
            sv_push(&out, names.v[i]);
        free(path);
    }
    sv_free(&names);
    return out;
}

/* Whether name is PID.exec.K. */
static bool is_exec_mark(const char *name)
{
    size_t a = strspn(name, "0123456789");
    if (a == 0 || strncmp(name + a, ".exec.", 6) != 0)
        return false;
    return all_digits(name + a + 6);
}

struct strv exec_snapshots(const char *pending, const char *absdir, const char *dir, const char *prefix)
{
    struct strv out = {0};
    struct strv names = marks(pending, "*.exec.*");
    for (size_t i = 0; i < names.n; i++) {
        if (!is_exec_mark(names.v[i]))
            continue;
        char *mark = str_printf("%s/%s", pending, names.v[i]);
        char *line = file_first_line(mark);
        free(mark);
        const char *path = line && strncmp(line, "written ", 8) == 0 ? line + 8 : NULL;
        const char *slash = path ? strrchr(path, '/') : NULL;
        if (slash != NULL && strlen(absdir) == (size_t)(slash - path) && strncmp(path, absdir, slash - path) == 0 &&
            strncmp(slash + 1, prefix, strlen(prefix)) == 0 && is_regular(path)) {
            char *s = str_printf("%s/%s", dir, slash + 1);
            sv_push(&out, s);
            free(s);
        }
        free(line);
    }
    sv_free(&names);
    return out;
}

enum pending_state pending_state(const char *mark)
{
    char *line = file_first_line(mark);
    enum pending_state s = PENDING_NONE;
    if (line != NULL && strncmp(line, "written ", 8) == 0)
        s = PENDING_WRITTEN;
    else if (line != NULL && strcmp(line, "not written") == 0)
        s = PENDING_NOT_WRITTEN;
    free(line);
    return s;
}

bool is_snapshot_of(const char *s, const char *pid)
{
    size_t len = strlen(s), plen = strlen(pid);
    if (len < 5 || strcmp(s + len - 5, ".snap") != 0)
        return false;
    const char *end = s + len - 5;
    const char *n = end;
    while (n > s && isdigit((unsigned char)n[-1]))
        n--;
    if (n == s || n[-1] != '.')
        return false;
    const char *p = n - 1;
    if ((size_t)(p - s) < plen + 1 || strncmp(p - plen, pid, plen) != 0)
        return false;
    char before = p[-(long)plen - 1];
    return before == '/' || before == '.';
}

void unjudged_processes(const char *pending, const struct strv *late, const struct strv *snaps,
                        struct strv *pids, struct strv *why)
{
    struct strv names = marks(pending, "*");
    for (size_t i = 0; i < names.n; i++) {
        const char *pid = names.v[i];
        if (!all_digits(pid) || sv_has(late, pid))
            continue;
        char *mark = str_printf("%s/%s", pending, pid);
        enum pending_state s = pending_state(mark);
        free(mark);
        if (s == PENDING_WRITTEN)
            continue;
        struct strbuf b = {0};
        sb_adds(&b, s == PENDING_NOT_WRITTEN ? "its final snapshot could not be written (its gpuleak: warning says why)"
                                             : "it ended without a final snapshot");
        for (size_t k = 0, first = 1; k < snaps->n; k++)
            if (is_snapshot_of(snaps->v[k], pid)) {
                sb_adds(&b, first ? "; its last snapshot, " : "\n");
                sb_adds(&b, snaps->v[k]);
                first = 0;
            }
        bool named = false;
        for (size_t k = 0; k < snaps->n; k++)
            named |= is_snapshot_of(snaps->v[k], pid);
        if (named)
            sb_adds(&b, ", is not final");
        sv_push(pids, pid);
        char *w = sb_take(&b);
        sv_push(why, w);
        free(w);
    }
    sv_free(&names);
}
