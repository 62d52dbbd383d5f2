/* The refusals of attach and detach, as the script gave them. */
#include "attach_checks.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gdb.h"
#include "launcher.h"
#include "proc.h"
#include "strbuf.h"

/* The n-th (from 0) blank-separated word of line (up to its newline), a
 * new string, "" when there are fewer. */
static char *word(const char *line, int n)
{
    const char *blanks = " \t";
    const char *p = line + strspn(line, blanks);
    for (; n > 0 && *p && *p != '\n'; n--) {
        p += strcspn(p, " \t\n");
        p += strspn(p, blanks);
    }
    size_t len = *p == '\n' ? 0 : strcspn(p, " \t\n");
    return str_printf("%.*s", (int)len, p);
}

/* The words of line after the first, joined by one space. */
static char *words_after_key(const char *line)
{
    struct strbuf b = {0};
    for (int i = 1;; i++) {
        char *w = word(line, i);
        if (*w == '\0') {
            free(w);
            break;
        }
        if (b.len)
            sb_addc(&b, ' ');
        sb_adds(&b, w);
        free(w);
    }
    return sb_take(&b);
}

static void replace(char **slot, char *value)
{
    free(*slot);
    *slot = value;
}

bool parse_proc_status(const char *text, struct proc_status *st)
{
    *st = (struct proc_status){NULL, str_printf("0"), NULL, NULL, str_printf("%s", "")};
    for (const char *line = text; line && *line;) {
        char *key = word(line, 0);
        if (strcmp(key, "State:") == 0)
            replace(&st->state, word(line, 1));
        else if (strcmp(key, "TracerPid:") == 0)
            replace(&st->tracer, word(line, 1));
        else if (strcmp(key, "Uid:") == 0)
            replace(&st->fsuid, word(line, 4));
        else if (strcmp(key, "Gid:") == 0)
            replace(&st->fsgid, word(line, 4));
        else if (strcmp(key, "Groups:") == 0)
            replace(&st->groups, words_after_key(line));
        free(key);
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    return st->state && *st->state && st->fsuid && *st->fsuid && st->fsgid && *st->fsgid;
}

void proc_status_free(struct proc_status *st)
{
    free(st->state);
    free(st->tracer);
    free(st->fsuid);
    free(st->fsgid);
    free(st->groups);
    *st = (struct proc_status){0};
}

/* Read whole, in one go: the kernel makes the text anew for each read,
 * and a line that changed length between reads shifted the rest (the
 * script's comment on proc_status). */
bool read_proc_status(const char *pid, struct proc_status *st)
{
    char *path = str_printf("/proc/%s/status", pid);
    char *text = read_proc(path, NULL);
    free(path);
    bool ok = parse_proc_status(text ? text : "", st);
    free(text);
    return text != NULL && ok;
}

/* Whether this process has CAP_SYS_PTRACE (bit 19 of CapEff). */
static bool can_ptrace_all(void)
{
    char *text = read_proc("/proc/self/status", NULL);
    char *cap = text ? strstr(text, "\nCapEff:") : NULL;
    bool can = cap != NULL && (strtoull(cap + 8, NULL, 16) >> 19) & 1;
    free(text);
    return can;
}

/* The first line of a file with its blanks around trimmed (bash's read
 * of one variable), or NULL. */
static char *first_line(const char *path)
{
    if (access(path, R_OK) != 0)
        return NULL;
    char *text = read_text_file(path);
    if (text == NULL)
        return NULL;
    size_t len = strcspn(text, "\n");
    const char *start = text;
    while (len > 0 && (*start == ' ' || *start == '\t'))
        start++, len--;
    while (len > 0 && (start[len - 1] == ' ' || start[len - 1] == '\t'))
        len--;
    char *line = str_printf("%.*s", (int)len, start);
    free(text);
    return line;
}

char *ptrace_refusal(const char *pid)
{
    char *path = str_printf("/proc/%s", pid);
    struct stat st;
    int gone = stat(path, &st);
    free(path);
    if (gone != 0)
        return str_printf("no process %s", pid);
    const char *test_yama = getenv("GPULEAK_YAMA_SCOPE_FILE");
    bool testing = test_yama != NULL && *test_yama != '\0';
    bool can_ptrace = !testing && can_ptrace_all();
    if (st.st_uid != geteuid() && !can_ptrace)
        return str_printf("process %s belongs to another user (uid %u); attaching needs that user or "
                          "CAP_SYS_PTRACE",
                          pid, (unsigned)st.st_uid);
    char *scope = first_line(testing ? test_yama : "/proc/sys/kernel/yama/ptrace_scope");
    char *why = NULL;
    if (scope == NULL)
        return NULL;
    if (strcmp(scope, "1") == 0 && !can_ptrace)
        why = str_printf("Yama ptrace_scope is 1: only a process's ancestors may trace it (run as root, give gdb "
                         "CAP_SYS_PTRACE, or set /proc/sys/kernel/yama/ptrace_scope to 0)");
    else if (strcmp(scope, "2") == 0 && !can_ptrace)
        why = str_printf("Yama ptrace_scope is 2: only CAP_SYS_PTRACE may trace (run as root)");
    else if (strcmp(scope, "3") == 0)
        why = str_printf("Yama ptrace_scope is 3: no process may be traced on this machine");
    free(scope);
    return why;
}

/* Whether the command `name` can be run, as `command -v` finds it. */
static bool have_command(const char *name)
{
    if (strchr(name, '/') != NULL)
        return access(name, X_OK) == 0;
    char *found = search_path(name);
    free(found);
    return found != NULL;
}

/* One attach or detach of a process at a time, from any user or launcher:
 * the lock's descriptor is inherited by gdb and never closed, so the lock
 * lasts until both end, and goes with the process (a pid reused is
 * another directory). */
static int attach_lock_fd = -1;

static void attach_lock(const char *what, const char *pid)
{
    char *path = str_printf("/proc/%s", pid);
    int fd = open(path, O_RDONLY | O_DIRECTORY);
    free(path);
    if (fd < 0)
        die("%s: no process %s", what, pid);
    if (flock(fd, LOCK_EX | LOCK_NB) != 0)
        die("%s: another attach or detach of process %s is running", what, pid);
    attach_lock_fd = fd;
}

void attach_unlock(void)
{
    if (attach_lock_fd >= 0)
        close(attach_lock_fd);
    attach_lock_fd = -1;
}

/* Whether process pid is a gdb that an attach or detach started (its
 * command line calls the library's entry points). */
static bool gpuleak_gdb_of(const char *pid)
{
    char *cmd = proc_cmdline(pid);
    if (cmd == NULL)
        return false;
    bool ours = strstr(cmd, "gpuleak_attach_start") != NULL || strstr(cmd, "gpuleak_detach_start") != NULL;
    free(cmd);
    return ours;
}

/* A zombie (gdb would fail), a process another tracer holds (one tracer
 * at a time), a stopped one (the call would take effect, unseen, once it
 * is continued): refused at once, nothing changed. */
static void process_state_checks(const char *what, const char *pid, struct proc_status *st)
{
    if (!read_proc_status(pid, st))
        die("%s: no process %s", what, pid);
    if (strcmp(st->state, "Z") == 0)
        die("%s: process %s has ended (a zombie, not yet reaped by its parent)", what, pid);
    if (*st->tracer != '\0' && strcmp(st->tracer, "0") != 0) {
        if (gpuleak_gdb_of(st->tracer))
            die("%s: another attach or detach of process %s is running", what, pid);
        char *path = str_printf("/proc/%s/comm", st->tracer);
        char *comm = first_line(path);
        free(path);
        die("%s: process %s is traced by process %s%s%s%s, and a process has one tracer at a time", what, pid,
            st->tracer, comm && *comm ? " (" : "", comm ? comm : "", comm && *comm ? ")" : "");
    }
    if (strcmp(st->state, "T") == 0 || strcmp(st->state, "t") == 0)
        die("%s: process %s is stopped; continue it first (kill -CONT %s); nothing was changed", what, pid, pid);
}

void attach_checks(const char *what, const char *pid, struct proc_status *st)
{
    if (*pid == '\0' || strspn(pid, "0123456789") != strlen(pid))
        die("%s: '%s' is not a process id", what, pid);
    char *dir = str_printf("/proc/%s", pid);
    struct stat sb;
    bool exists = stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode);
    free(dir);
    if (!exists)
        die("%s: no process %s", what, pid);
    char *me = str_printf("%d", (int)getpid());
    bool myself = strcmp(pid, me) == 0;
    free(me);
    if (myself)
        die("%s: cannot %s to myself", what, what);
    if (!have_command(gdb_program()))
        die("%s: gdb is not installed (apt install gdb); it loads gpuleak into the running process", what);
    char *why = ptrace_refusal(pid);
    if (why != NULL)
        die("%s: %s", what, why);
    attach_lock(what, pid);
    process_state_checks(what, pid, st);
}

/* Whether the file at path holds the bytes of needle (grep -qaF). */
static bool file_contains(const char *path, const char *needle)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return false;
    size_t n = strlen(needle), keep = 0;
    char buf[65536];
    bool found = false;
    for (;;) {
        size_t got = fread(buf + keep, 1, sizeof buf - keep, f);
        if (got == 0)
            break;
        size_t have = keep + got;
        if (memmem(buf, have, needle, n) != NULL) {
            found = true;
            break;
        }
        keep = have < n - 1 ? have : n - 1;
        memmove(buf, buf + have - keep, keep);
    }
    fclose(f);
    return found;
}

/* The first file of LD_PRELOAD's first line (':' and blanks separate)
 * that is libgpuleak by name or by what it exports, or NULL. */
static char *preloaded_gpuleak(const char *preload)
{
    char *list = str_printf("%.*s", (int)strcspn(preload, "\n"), preload);
    for (char *c = list; *c; c++)
        if (*c == ':')
            *c = ' ';
    char *found = NULL, *save = NULL;
    for (char *f = strtok_r(list, " \t", &save); f != NULL && found == NULL; f = strtok_r(NULL, " \t", &save))
        if (strstr(f, "libgpuleak") != NULL || (f[0] == '/' && file_contains(f, "gpuleak_attach_start")))
            found = str_printf("%s", f);
    free(list);
    return found;
}

void preloaded_check(const char *what, const char *pid)
{
    char *preload = target_env(pid, "LD_PRELOAD");
    char *found = preload ? preloaded_gpuleak(preload) : NULL;
    free(preload);
    if (found == NULL)
        return;
    const char *base = strrchr(found, '/') ? strrchr(found, '/') + 1 : found;
    char *as = strncmp(base, "libgpuleak", 10) == 0 ? str_printf("%s", "") : str_printf(" as %s", found);
    if (strcmp(what, "attach") == 0)
        die("attach: process %s has libgpuleak preloaded%s (started under gpuleak run): use '%s snapshot %s'", pid,
            as, launcher()->prog, pid);
    die("detach: process %s has libgpuleak preloaded%s (started under gpuleak run): it cannot be detached", pid, as);
}

bool process_running(const char *pid)
{
    char *path = str_printf("/proc/%s/stat", pid);
    char *stat = read_proc(path, NULL);
    free(path);
    if (stat == NULL)
        return false;
    stat[strcspn(stat, "\n")] = '\0';
    char *paren = strstr(stat, ") ");
    /* The state after the last ") ", as ${stat##*) } found it. */
    for (char *p = paren; p != NULL; p = strstr(p + 1, ") "))
        paren = p;
    const char *rest = paren ? paren + 2 : stat;
    bool running = !(rest[0] == 'Z' && (rest[1] == ' ' || rest[1] == '\0'));
    free(stat);
    return running;
}

/* setpriv run as the process's user, group and groups: `test -w DIR -a
 * -x DIR` asked of the kernel (ACLs and every directory above included). */
static bool kernel_says_can_create(const struct proc_status *st, const char *dir)
{
    char *groups = str_printf("%s", st->groups);
    for (char *c = groups; *c; c++)
        if (*c == ' ')
            *c = ',';
    char *reuid = str_printf("--reuid=%s", st->fsuid), *regid = str_printf("--regid=%s", st->fsgid);
    char *group_opt = *groups ? str_printf("--groups=%s", groups) : str_printf("--clear-groups");
    char *argv[] = {"setpriv", reuid, regid, group_opt, "--", "test", "-w", (char *)dir, "-a", "-x", (char *)dir,
                    NULL};
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, 2);
        execvp("setpriv", argv);
        _exit(127);
    }
    int status = 0;
    bool can = child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    free(reuid);
    free(regid);
    free(group_opt);
    free(groups);
    return can;
}

/* Whether the words of list (one space between) include w. */
static bool has_word(const char *list, const char *w)
{
    char *padded = str_printf(" %s ", list), *needle = str_printf(" %s ", w);
    bool has = strstr(padded, needle) != NULL;
    free(padded);
    free(needle);
    return has;
}

bool can_create_as_target(const struct proc_status *st, const char *dir)
{
    char *setpriv = geteuid() == 0 ? search_path("setpriv") : NULL;
    if (setpriv != NULL) {
        free(setpriv);
        return kernel_says_can_create(st, dir);
    }
    struct stat sb;
    if (stat(dir, &sb) != 0)
        return false;
    char *owner = str_printf("%u", (unsigned)sb.st_uid), *group = str_printf("%u", (unsigned)sb.st_gid);
    unsigned mode = sb.st_mode & 07777, bits;
    if (strcmp(owner, st->fsuid) == 0)
        bits = (mode >> 6) & 7;
    else if (strcmp(group, st->fsgid) == 0 || has_word(st->groups, group))
        bits = (mode >> 3) & 7;
    else
        bits = mode & 7;
    free(owner);
    free(group);
    return (bits & 3) == 3;
}
