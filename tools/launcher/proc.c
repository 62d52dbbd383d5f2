/* Processes read through /proc (the script's tracked_pid). */
#include "proc.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"
#include "launcher.h"

char *read_proc(const char *path, size_t *len)
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

char *proc_cmdline(const char *pid)
{
    char *path = str_printf("/proc/%s/cmdline", pid);
    size_t len = 0;
    char *cmd = read_proc(path, &len);
    free(path);
    if (cmd == NULL)
        return NULL;
    for (size_t i = 0; i < len; i++)
        if (cmd[i] == '\0')
            cmd[i] = ' ';
    return cmd;
}

/* Whether the command line of pid has "gpuleak run" in it. */
static bool is_gpuleak_run(const char *pid)
{
    char *cmd = proc_cmdline(pid);
    bool is = cmd != NULL && strstr(cmd, "gpuleak run") != NULL;
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

char *start_time(const char *pid)
{
    char *path = str_printf("/proc/%s/stat", pid);
    char *stat = read_proc(path, NULL);
    free(path);
    char *paren = stat ? strrchr(stat, ')') : NULL;
    char *field = NULL;
    if (paren != NULL) {
        char *save, *tok = strtok_r(paren + 1, " \n", &save);
        for (int i = 3; tok != NULL && i < 22; i++)
            tok = strtok_r(NULL, " \n", &save);
        field = tok ? str_printf("%s", tok) : NULL;
    }
    free(stat);
    return field;
}

/* The attach record of pid: $XDG_RUNTIME_DIR (or /tmp)/gpuleak-attach-EUID/PID,
 * a regular file whose first line is the process's start time (a pid
 * reused by another process does not match), then NAME=value lines. */
static char *attach_record(const char *pid)
{
    const char *run = getenv("XDG_RUNTIME_DIR");
    char *path = str_printf("%s/gpuleak-attach-%u/%s", run && *run ? run : "/tmp", (unsigned)geteuid(), pid);
    struct stat st;
    char *text = NULL;
    if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
        text = read_proc(path, NULL);
    free(path);
    char *start = text ? start_time(pid) : NULL;
    size_t first = text ? strcspn(text, "\n") : 0;
    if (start == NULL || strlen(start) != first || strncmp(text, start, first) != 0) {
        free(text);
        text = NULL;
    }
    free(start);
    return text;
}

/* The value of name in the record's lines after the first, or NULL. */
static char *record_value(const char *record, const char *name)
{
    size_t n = strlen(name);
    const char *line = strchr(record, '\n');
    while (line != NULL) {
        line++;
        size_t len = strcspn(line, "\n");
        if (len > n && strncmp(line, name, n) == 0 && line[n] == '=')
            return str_printf("%.*s", (int)(len - n - 1), line + n + 1);
        line = line[len] ? line + len : NULL;
    }
    return NULL;
}

char *target_env(const char *pid, const char *name)
{
    char *record = attach_record(pid);
    char *value = record ? record_value(record, name) : NULL;
    free(record);
    if (value != NULL)
        return value;
    char *path = str_printf("/proc/%s/environ", pid);
    size_t len = 0;
    char *env = read_proc(path, &len);
    free(path);
    size_t n = strlen(name);
    for (size_t i = 0; env != NULL && i < len; i += strlen(env + i) + 1)
        if (strncmp(env + i, name, n) == 0 && env[i + n] == '=') {
            value = str_printf("%s", env + i + n + 1);
            break;
        }
    free(env);
    return value;
}

char *target_rank(const char *pid)
{
    static const char *const vars[] = {"RANK",     "OMPI_COMM_WORLD_RANK", "PMIX_RANK",
                                       "PMI_RANK", "SLURM_PROCID",         "LOCAL_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        char *v = target_env(pid, vars[i]);
        char *r = v ? rank_value(v) : NULL;
        free(v);
        if (r != NULL)
            return r;
    }
    return str_printf("0");
}

/* The target of a /proc link, or NULL. */
static char *read_link(const char *path)
{
    char buf[PATH_MAX];
    ssize_t n = readlink(path, buf, sizeof buf - 1);
    if (n < 0)
        return NULL;
    return str_printf("%.*s", (int)n, buf);
}

char *target_host(const char *pid)
{
    char *mine = read_link("/proc/self/ns/uts");
    char *path = str_printf("/proc/%s/ns/uts", pid);
    char *theirs = read_link(path);
    free(path);
    bool same = mine && theirs && strcmp(mine, theirs) == 0;
    free(mine);
    free(theirs);
    char *h = same ? read_proc("/proc/sys/kernel/hostname", NULL) : NULL;
    if (h == NULL)
        return str_printf("%s", "");
    size_t len = strlen(h);
    while (len > 0 && h[len - 1] == '\n')
        h[--len] = '\0';
    if (len > 255)
        h[len = 255] = '\0';
    for (char *c = h; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '.' && *c != '_' && *c != '-')
            *c = '_';
    if (len == 0) {
        free(h);
        return str_printf("unknown");
    }
    if (h[0] == '.')
        h[0] = '_';
    return h;
}

bool in_sigmask(const char *status_path, const char *key, int sig)
{
    char *status = read_proc(status_path, NULL);
    if (status == NULL)
        return false;
    size_t n = strlen(key);
    bool in = false;
    for (char *line = status; line != NULL && *line;) {
        char *next = strchr(line, '\n');
        if (strncmp(line, key, n) == 0 && line[n] == ':') {
            char *mask = line + n + 1;
            while (*mask == ' ' || *mask == '\t')
                mask++;
            size_t digits = strspn(mask, "0123456789abcdefABCDEF");
            char *end = mask + digits;
            while (*end == ' ' || *end == '\t')
                end++;
            if (digits >= 1 && digits <= 16 && (*end == '\n' || *end == '\0'))
                in = (strtoull(mask, NULL, 16) >> (sig - 1)) & 1;
            break;
        }
        line = next ? next + 1 : NULL;
    }
    free(status);
    return in;
}

static int name_order(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

char *writer_tid(const char *pid)
{
    char *dir = str_printf("/proc/%s/task", pid);
    struct dirent **ents = NULL;
    int n = scandir(dir, &ents, NULL, name_order);
    char *tid = NULL;
    for (int i = 0; i < n; i++) {
        if (tid == NULL && ents[i]->d_name[0] != '.') {
            char *path = str_printf("%s/%s/comm", dir, ents[i]->d_name);
            char *comm = read_proc(path, NULL);
            free(path);
            if (comm != NULL && strcmp(comm, "gpuleak-writer\n") == 0)
                tid = str_printf("%s", ents[i]->d_name);
            free(comm);
        }
        free(ents[i]);
    }
    free(ents);
    free(dir);
    return tid;
}
