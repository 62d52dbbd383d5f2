/* Processes read through /proc (the script's tracked_pid). */
#include "proc.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher.h"

/* The whole of a /proc file (NUL bytes kept), or NULL. */
static char *read_proc(const char *path, size_t *len)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 8192;
            char *b = realloc(buf, cap);
            if (b == NULL)
                break;
            buf = b;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    if (buf == NULL)
        return NULL;
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

bool has_gpuleak_loaded(const char *pid)
{
    char *path = str_printf("/proc/%s/maps", pid);
    char *maps = read_proc(path, NULL);
    free(path);
    bool loaded = maps != NULL && strstr(maps, "libgpuleak.so") != NULL;
    free(maps);
    return loaded;
}

/* The one child of pid (its first line of children), or NULL when it has
 * none or several. */
static char *only_child(const char *pid)
{
    char *path = str_printf("/proc/%s/task/%s/children", pid, pid);
    char *kids = read_proc(path, NULL);
    free(path);
    if (kids == NULL)
        return NULL;
    kids[strcspn(kids, "\n")] = '\0';
    char *save, *first = strtok_r(kids, " \t", &save);
    char *child = first && strtok_r(NULL, " \t", &save) == NULL ? str_printf("%s", first) : NULL;
    free(kids);
    return child;
}

/* Whether the command line of pid has "gpuleak run" in it. */
static bool is_gpuleak_run(const char *pid)
{
    char *path = str_printf("/proc/%s/cmdline", pid);
    size_t len = 0;
    char *cmd = read_proc(path, &len);
    free(path);
    if (cmd == NULL)
        return false;
    for (size_t i = 0; i < len; i++)
        if (cmd[i] == '\0')
            cmd[i] = ' ';
    bool is = strstr(cmd, "gpuleak run") != NULL;
    free(cmd);
    return is;
}

/* kill -0 of a pid as typed: the digits read as bash's kill reads them. */
static bool may_signal(const char *pid)
{
    errno = 0;
    char *end;
    long long n = strtoll(pid, &end, 10);
    if (errno != 0 || *end != '\0' || n > 2147483647LL)
        return false;
    return kill((pid_t)n, 0) == 0;
}

char *tracked_pid(const char *what, const char *pid)
{
    if (!may_signal(pid))
        die("%s: no process %s (or not allowed to signal it)", what, pid);
    char *tracked = str_printf("%s", pid);
    if (!has_gpuleak_loaded(pid)) {
        char *child = only_child(pid);
        if (child != NULL && has_gpuleak_loaded(child) && is_gpuleak_run(pid)) {
            free(tracked);
            tracked = child;
        } else {
            free(child);
        }
    }
    if (!has_gpuleak_loaded(tracked))
        die("%s: process %s does not have libgpuleak.so loaded (start it with '%s run')", what, tracked,
            launcher()->prog);
    return tracked;
}
