/* The status directory, the wait for the library's answer, its words. */
#include "attach_status.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gdb.h"
#include "launcher.h"
#include "strbuf.h"

/* Whether s has a control character (bash's [[:cntrl:]]). */
static bool has_control(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return true;
    return false;
}

char *run_capture(char *const argv[], bool private_umask)
{
    int pipefd[2];
    if (pipe(pipefd) != 0)
        return NULL;
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        close(pipefd[0]);
        if (private_umask)
            umask(077);
        if (dup2(pipefd[1], 1) < 0)
            _exit(127);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(pipefd[1]);
    struct strbuf b = {0};
    char buf[512];
    ssize_t n;
    while (child > 0 && (n = read(pipefd[0], buf, sizeof buf)) > 0)
        sb_addn(&b, buf, (size_t)n);
    close(pipefd[0]);
    int status = 0;
    bool ok = child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    char *out = sb_take(&b);
    /* $(...) drops the trailing newlines. */
    size_t len = strlen(out);
    while (len > 0 && out[len - 1] == '\n')
        out[--len] = '\0';
    if (ok)
        return out;
    free(out);
    return NULL;
}

/* mktemp -d run as the script ran it ($TMPDIR or /tmp, 0700): its own
 * line on stderr when it fails, as before.  The name it printed, or NULL. */
static char *make_temp_dir(void)
{
    char *argv[] = {"mktemp", "-d", NULL};
    return run_capture(argv, false);
}

/* When root works on another user's process, the directory becomes that
 * user's, so that the process's thread can write its answer there. */
static void give_to_target(const char *pid, const char *dir)
{
    if (geteuid() != 0)
        return;
    char *proc = str_printf("/proc/%s", pid);
    struct stat st;
    if (stat(proc, &st) == 0 && st.st_uid != geteuid() && chown(dir, st.st_uid, st.st_gid) != 0) {
        /* as the script: its chown's failure shows in the check below */
    }
    free(proc);
}

char *status_dir(const char *what, const char *pid, const struct proc_status *st)
{
    char *dir = make_temp_dir();
    if (dir == NULL)
        die("%s: cannot create a temporary directory", what);
    if (has_control(dir))
        die("%s: the temporary directory has a control character (newline, tab...); refused", what);
    give_to_target(pid, dir);
    char *me = str_printf("%u", (unsigned)geteuid());
    bool same_user = st->fsuid != NULL && strcmp(st->fsuid, me) == 0;
    free(me);
    if (same_user)
        return dir;
    /* No user known: the process ended after the first checks. */
    if (st->fsuid == NULL || *st->fsuid == '\0') {
        remove_tree(dir);
        die("%s: process %s ended during the %s", what, pid, what);
    }
    if (can_create_as_target(st, dir))
        return dir;
    remove_tree(dir);
    die("%s: process %s (uid %s) cannot reach the temporary directory %s; set TMPDIR to a directory it can", what,
        pid, st->fsuid, dir);
}

/* The first line of path when it is complete (ends in a newline), as
 * bash's read succeeds only then; NULL otherwise. */
static char *complete_first_line(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || st.st_size == 0)
        return NULL;
    char *text = read_text_file(path);
    char *nl = text ? strchr(text, '\n') : NULL;
    char *line = nl ? str_printf("%.*s", (int)(nl - text), text) : NULL;
    free(text);
    return line;
}

/* Seconds of the monotonic clock, as bash's $SECONDS counts them. */
static time_t now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec;
}

/* Looked at every 10 ms: the line usually comes within 50-150 ms. */
char *wait_status(const char *path, const char *pid)
{
    time_t end = now_seconds() + 61;
    while (now_seconds() < end) {
        char *line = complete_first_line(path);
        if (line != NULL)
            return line;
        if (!process_running(pid))
            break;
        struct timespec tick = {0, 10 * 1000 * 1000};
        nanosleep(&tick, NULL);
    }
    return str_printf("%s", "");
}

char *attach_message(const char *rc, const char *pid)
{
    static const char *const answers[] = {
        [1] = "process %1$s is tracked already (gpuleak attach, or started under gpuleak run)",
        [2] = "process %1$s has libgpuleak preloaded (started under gpuleak run): use '%2$s snapshot %1$s'",
        [3] = "another attach or detach of process %1$s is running",
        [4] = "the settings were refused",
        [5] = "a slot of process %1$s could not be written; nothing was changed",
        [6] = "process %1$s is not attached",
        [7] = "process %1$s has GPULEAK_DISABLE set in its environment",
        [8] = "process %1$s has another copy of libgpuleak loaded by an earlier attach (another installation, or "
              "another file name); attach with that one's gpuleak",
    };
    if (strlen(rc) == 1 && rc[0] >= '1' && rc[0] <= '8')
        return str_printf(answers[rc[0] - '0'], pid, launcher()->prog);
    return str_printf("unexpected answer '%s' from the library in process %s", rc, pid);
}

char *attach_record_path(const char *pid)
{
    const char *run = getenv("XDG_RUNTIME_DIR");
    return str_printf("%s/gpuleak-attach-%u/%s", run && *run ? run : "/tmp", (unsigned)geteuid(), pid);
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    if (flag == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

void remove_tree(const char *path)
{
    nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}
