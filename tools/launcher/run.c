/* gpuleak run (the script's cmd_run). */
#include "run.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "env.h"
#include "launcher.h"
#include "usage.h"
#include "parse.h"
#include "pattern.h"
#include "run_end.h"
#include "strbuf.h"

struct run_opts {
    bool quiet;
    bool output_given;
    char **command; /* NULL-terminated */
};

/* One valued option: checked by check, exported as var; dies naming the
 * flag as typed. */
static void take_value(const char *flag, const char *value, const char *var, char *(*check)(const char *))
{
    char *why = check(value);
    if (why != NULL)
        die("run: %s %s: %s", flag, value, why);
    setenv(var, value, 1);
}

static char *check_output_here(const char *v)
{
    return check_output(v, false);
}

static const struct valued {
    const char *flag;
    const char *var;
    char *(*check)(const char *);
} valued[] = {
    {"--output", "GPULEAK_OUTPUT", check_output_here},
    {"--depth", "GPULEAK_DEPTH", check_depth},
    {"--signal", "GPULEAK_SIGNAL", check_signal},
    {"--interval", "GPULEAK_INTERVAL", check_interval},
    {"--keep", "GPULEAK_KEEP", check_keep},
};

/* argv[*i] as a valued option (--flag VALUE or --flag=VALUE): true when
 * it was one. */
static bool valued_option(int argc, char **argv, int *i, struct run_opts *o)
{
    for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++) {
        const struct valued *v = &valued[k];
        size_t n = strlen(v->flag);
        if (strncmp(argv[*i], v->flag, n) != 0 || (argv[*i][n] != '\0' && argv[*i][n] != '='))
            continue;
        const char *value;
        if (argv[*i][n] == '=') {
            value = argv[*i] + n + 1;
        } else {
            if (*i + 1 >= argc)
                die("run: %s needs a value", v->flag);
            value = argv[++*i];
        }
        take_value(v->flag, value, v->var, v->check);
        o->output_given |= k == 0;
        return true;
    }
    return false;
}

static void parse_run(int argc, char **argv, struct run_opts *o)
{
    int i = 0;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (valued_option(argc, argv, &i, o))
            continue;
        if (strcmp(a, "--free-stacks") == 0)
            setenv("GPULEAK_FREE_STACKS", "1", 1);
        else if (strcmp(a, "--disable") == 0)
            setenv("GPULEAK_DISABLE", "1", 1);
        else if (strcmp(a, "--light") == 0)
            setenv("GPULEAK_MODE", "light", 1);
        else if (strcmp(a, "--torch-per-tensor") == 0)
            torch_per_tensor("run");
        else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0)
            o->quiet = true;
        else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
            show_usage(0);
        else if (strcmp(a, "--") == 0) {
            i++;
            break;
        } else if (a[0] == '-')
            die("run: unknown option %s (see %s --help)", a, launcher()->prog);
        else
            break;
    }
    if (i >= argc)
        die("run: no command given (usage: %s run [options] -- command [args...])", launcher()->prog);
    o->command = argv + i;
}

/* GPULEAK_OUTPUT set by hand gets --output's check: a missing directory is
 * known now, not after the job. */
static void check_output_by_hand(void)
{
    const char *out = getenv("GPULEAK_OUTPUT");
    if (out == NULL || *out == '\0')
        return;
    char *why = check_output(out, false);
    if (why != NULL)
        die("run: GPULEAK_OUTPUT=%s: %s", out, why);
}

static noreturn void exec_command(char **command)
{
    execvp(command[0], command);
    int err = errno;
    fprintf(stderr, "%s: run: cannot run %s: %s\n", launcher()->prog, command[0], strerror(err));
    _exit(err == ENOENT ? 127 : 126);
}

/* The signals passed on to the command when they are sent to the
 * launcher alone (kill PID). */
static const int forwarded[] = {SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGALRM};
static volatile pid_t child_pid;

static void forward_signal(int sig)
{
    if (child_pid > 0)
        kill(child_pid, sig);
}

static void ignore_for_now(int sig)
{
    (void)sig;
}

static bool ignored_on_entry(int sig)
{
    struct sigaction old;
    return sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN;
}

static void set_handler(int sig, void (*fn)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fn;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

/* Ctrl-C reaches the command from the terminal (same process group), so
 * the launcher only waits through INT and QUIT; what is sent to it alone
 * is passed on.  A signal ignored on entry stays ignored, for the command
 * too, as under exec. */
static void start_child(char **command)
{
    bool int_ign = ignored_on_entry(SIGINT), quit_ign = ignored_on_entry(SIGQUIT);
    bool fwd_ign[sizeof forwarded / sizeof forwarded[0]];
    for (size_t k = 0; k < sizeof forwarded / sizeof forwarded[0]; k++) {
        fwd_ign[k] = ignored_on_entry(forwarded[k]);
        if (!fwd_ign[k])
            set_handler(forwarded[k], forward_signal);
    }
    if (!int_ign)
        set_handler(SIGINT, ignore_for_now);
    if (!quit_ign)
        set_handler(SIGQUIT, ignore_for_now);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        die("run: cannot start the command: %s", strerror(errno));
    if (pid == 0)
        exec_command(command); /* (handlers go back to their defaults in exec) */
    child_pid = pid;
}

static int wait_child(void)
{
    int status = 0;
    while (waitpid(child_pid, &status, 0) < 0)
        if (errno != EINTR)
            return 127 << 8;
    return status;
}

/* The command's status, unchanged: a death by signal is passed on as the
 * same signal (no core file of the launcher's). */
static noreturn void pass_status(int status)
{
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        signal(sig, SIG_DFL);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, sig);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
        kill(getpid(), sig);
        exit(128 + sig);
    }
    exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

/* Snapshots written in place (a stream, a device, a FIFO): no file to
 * list.  True when the pattern is one such target and it was said. */
static bool told_in_place(const char *out)
{
    if (out == NULL || *out == '\0' || strchr(out, '%') != NULL)
        return false;
    struct target t = target_of(out);
    if (t.kind != TARGET_STREAM && t.kind != TARGET_IN_PLACE)
        return false;
    fprintf(stderr, "%s: snapshots go to %s in place (not a regular file): none is kept to list\n",
            launcher()->prog, out);
    return true;
}

/* run's own directory for the processes' final-snapshot marks, unless an
 * outer check or run has its own in force (that one is its to read). */
static char *make_pending_dir(void)
{
    const char *outer = getenv("GPULEAK_PENDING_DIR");
    if (outer != NULL && *outer != '\0')
        return NULL;
    const char *tmp = getenv("TMPDIR");
    char *dir = str_printf("%s/gpuleak-run.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL) {
        free(dir);
        return NULL;
    }
    setenv("GPULEAK_PENDING_DIR", dir, 1);
    return dir;
}

static void remove_dir(const char *dir)
{
    /* The marks are plain files, one level deep (control/pending.c). */
    DIR *d = opendir(dir);
    if (d != NULL) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL)
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
                unlinkat(dirfd(d), e->d_name, 0);
        closedir(d);
    }
    rmdir(dir);
}

int cmd_run(int argc, char **argv)
{
    struct run_opts o = {0};
    parse_run(argc, argv, &o);
    if (!o.output_given)
        check_output_by_hand();
    char *rank = env_rank();
    setup_env();
    if (o.quiet)
        exec_command(o.command);
    const char *env_out = getenv("GPULEAK_OUTPUT");
    const char *pattern = env_out && *env_out ? env_out : "gpuleak.%p.%n.snap";
    char *glob = output_glob(pattern, rank);
    struct file_list before = glob_files(glob);
    char *pending = make_pending_dir();
    start_child(o.command);
    int status = wait_child();
    for (size_t k = 0; k < sizeof forwarded / sizeof forwarded[0]; k++)
        if (!ignored_on_entry(forwarded[k]))
            signal(forwarded[k], SIG_DFL);
    signal(SIGPIPE, SIG_IGN); /* a closed stderr must not cost the status */
    if (!told_in_place(env_out)) {
        struct file_list after = glob_files(glob);
        tell_snapshots(pattern, &before, &after, pending);
        file_list_free(&after);
    }
    if (pending != NULL)
        remove_dir(pending);
    pass_status(status);
}
